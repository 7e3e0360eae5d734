/**
 * Every page, docs included, passes axe-core's WCAG A and AA rules (issue 16: accessibility 100):
 * the same engine and rules Lighthouse's accessibility score is made of, run in Chromium on the
 * built app once each page has loaded what it shows.
 */
import { expect, test } from "@playwright/test";
import { loginViaApi, signInPage } from "./support/auth";
import { axeViolations } from "./support/axe";
import { SEED_CODES_FOR, readSeedCodes } from "./support/seed-codes";

const PUBLIC_PAGES = ["/", "/privacy", "/protocol-serve", "/service-level", "/docs.html", "/docs/quickstart.html", "/docs/zh-CN.html", "/docs/zh-CN/quickstart.html", "/docs/zh-CN/errors.html"];
const CONSOLE_PAGES = ["/console/info", "/console/api-keys", "/console/apply", "/console/billing-details", "/console/billing-details?tab=calls", "/console/billing-details?tab=calls&request=no-such-call", "/console/charge-details", "/console/api-keys?try=echo"];

// axe is injected as a script, which the pages' CSP (scripts by hash only) would refuse.
test.use({ bypassCSP: true });

for (const path of PUBLIC_PAGES) {
  test(`${path} has no WCAG A/AA violation`, async ({ page }) => {
    await page.goto(path);
    await expect(page.locator("h1").first()).toBeVisible({ timeout: 30_000 });
    await page.waitForLoadState("networkidle");
    expect(await axeViolations(page)).toEqual([]);
  });
}

test("every console page has no WCAG A/AA violation once its data is in", async ({ page, request }) => {
  test.setTimeout(180_000);
  const { token } = await loginViaApi(request);
  // Rows to read: a redeemed code (its green "Succeeded" tag), an active key and a disabled one (their tags and each row's link and danger buttons).
  const auth = { authorization: `Bearer ${token}` };
  expect((await request.post("/api/v1/console/redeem", { data: { code: readSeedCodes().codes[SEED_CODES_FOR.accessibility] }, headers: auth })).status()).toBe(200);
  expect((await request.post("/api/v1/console/keys", { data: { name: "active" }, headers: auth })).status()).toBe(201);
  const disabled = await request.post("/api/v1/console/keys", { data: { name: "disabled", allowedTools: ["echo"] }, headers: auth });
  expect((await request.patch(`/api/v1/console/keys/${((await disabled.json()) as { key: { id: number } }).key.id}`, { data: { enabled: false }, headers: auth })).status()).toBe(200);
  await signInPage(page, token);
  for (const path of CONSOLE_PAGES) {
    await page.goto(path);
    await expect(page.getByRole("main").getByRole("heading").first(), path).toBeVisible({ timeout: 30_000 });
    await page.waitForLoadState("networkidle");
    await expect(page.locator(".ant-skeleton, .ant-spin-spinning"), `${path} finished loading`).toHaveCount(0, { timeout: 30_000 });
    expect(await axeViolations(page), path).toEqual([]);
  }
});
