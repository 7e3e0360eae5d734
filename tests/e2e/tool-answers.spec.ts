/**
 * A tool's answer is the upstream's bytes served on the site's own origin. A page a tool sends
 * (HTML through the echo tool here) must not act as the site when a browser opens it.
 */
import { expect, test } from "@playwright/test";
import { loginViaApi } from "./support/auth";
import { SEED_CODES_FOR, readSeedCodes } from "./support/seed-codes";

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

test("an HTML answer opened in Chromium is sandboxed: no origin, so nothing of the site's to read or submit to", async ({ page, request }) => {
  const { token } = await loginViaApi(request);
  const redeemed = await request.post("/api/v1/console/redeem", { data: { code: readSeedCodes().codes[SEED_CODES_FOR.toolAnswers] }, headers: bearer(token) });
  expect(redeemed.status(), await redeemed.text()).toBe(200);
  const key = await request.post("/api/v1/console/keys", { data: { name: "html" }, headers: bearer(token) });
  const { secret } = (await key.json()) as { secret: string };

  const html = "<!doctype html><title>a tool's page</title><p>Sign in again</p>";
  // A navigation is a GET without the key: sent on as the call a link or form would have to make.
  await page.route("**/v1/tools/echo", (route) =>
    route.continue({ method: "POST", postData: html, headers: { ...route.request().headers(), ...bearer(secret), "content-type": "text/html" } }),
  );
  const response = await page.goto("/v1/tools/echo");
  expect(response?.status()).toBe(200);
  await expect(page.getByText("Sign in again")).toBeVisible();
  expect(await page.evaluate(() => ({ origin: window.origin, cookies: (() => { try { return document.cookie; } catch (e) { return (e as Error).name; } })() }))).toEqual({
    origin: "null",
    cookies: "SecurityError",
  });
});
