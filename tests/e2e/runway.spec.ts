import { expect as baseExpect, test } from "@playwright/test";
import { formatMoney, parseMoney } from "../../src/shared/money";
import { runAdminCli } from "./support/admin-cli";
import { loginViaApi, signInPage } from "./support/auth";

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

// The machine running the suite may be loaded: wait longer than the default for the page to render.
const expect = baseExpect.configure({ timeout: 30_000 });
test.setTimeout(180_000);

test("the account page shows the runway: no spend at first, then the days the balance lasts at the 7-day average, then more than a year", async ({ page, request }) => {
  const { token, phone } = await loginViaApi(request);
  const credited = await runAdminCli("credit", phone, "0.01", "--reason", "runway e2e");
  expect(credited.code, credited.stderr).toBe(0);

  await signInPage(page, token);
  await page.goto("/console/info");
  const runway = page.getByTestId("runway");
  await expect(runway).toHaveText("No spend in the last 7 days");

  const key = await request.post("/api/v1/console/keys", { data: { name: "runway" }, headers: bearer(token) });
  const { secret } = await key.json();
  let spent = 0n;
  for (let i = 0; i < 3; i++) {
    const call = await request.post("/v1/tools/echo", { data: { call: i }, headers: bearer(secret) });
    expect(call.status(), await call.text()).toBe(200);
    spent += parseMoney(call.headers()["x-tollgate-cost"]!);
  }
  const balance = parseMoney("0.01") - spent;
  const days = (balance * 7n) / spent;
  expect(days, "the days the spec's calls leave, under a year").toBeLessThanOrEqual(365n);
  const perDay = formatMoney(spent / 7n);
  await expect(async () => {
    await page.reload();
    await expect(runway).toHaveText(`About ${days} days left at ¥${perDay} a day (the last 7 days' average)`, { timeout: 5_000 });
  }).toPass();

  const more = await runAdminCli("credit", phone, "10", "--reason", "runway e2e, a year");
  expect(more.code, more.stderr).toBe(0);
  await expect(async () => {
    await page.reload();
    await expect(runway).toHaveText(`More than a year left at ¥${perDay} a day (the last 7 days' average)`, { timeout: 5_000 });
  }).toPass();
});
