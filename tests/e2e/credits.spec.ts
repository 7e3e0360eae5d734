import fs from "node:fs";
import { expect, request as playwrightRequest, test, type APIRequestContext, type Page } from "@playwright/test";
import { loginViaApi, signInPage } from "./support/auth";
import { startOwnServer } from "./support/own-server";
import { SEED_CODES_FOR, readSeedCodes } from "./support/seed-codes";
import { beijingDate } from "../../src/shared/beijing-time";

/** Each test takes its own seeded codes, so tests running side by side never race for one. */

async function openChargeDetails(page: Page, request: APIRequestContext) {
  const { token } = await loginViaApi(request);
  await signInPage(page, token);
  await page.goto("/console/charge-details");
  await expect(page.getByTestId("console-charge-details")).toBeVisible();
  return token;
}

/** Today's Beijing day, `offsetDays` away: the days the date filters take (decision 047). */
const beijingDay = (offsetDays = 0) => beijingDate(new Date(Date.now() + offsetDays * 86_400_000));

test("redeem a code: the header balance and the charge-details row update without a reload", async ({ page, request }) => {
  // Eleven round trips through the page: more than the default budget on a loaded machine.
  test.slow();
  const seed = readSeedCodes();
  const code = seed.codes[SEED_CODES_FOR.creditsRedeemInPage]!;
  await openChargeDetails(page, request);
  await expect(page.getByTestId("header-balance")).toHaveText("¥0.00");
  await expect(page.getByTestId("credits-table")).toContainText("No credits yet");
  await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));

  const input = page.getByTestId("redeem-code");
  const submit = page.getByTestId("redeem-submit");
  await submit.click();
  await expect(page.getByText("please enter a redemption code")).toBeVisible();
  await input.fill("ABC-123");
  await submit.click();
  await expect(page.getByText(/a redemption code has 20 letters and digits/)).toBeVisible();
  await input.fill("AAAA-BBBB-CCCC-DDDD-EEEE");
  await submit.click();
  await expect(page.getByText("this redemption code does not exist, check it and try again")).toBeVisible();
  // A refusal that comes back fast must not leave antd's loading icon behind, still announced as "loading".
  await expect(submit).toHaveAccessibleName("Redeem");
  await expect(submit.getByRole("img", { name: "loading" })).toHaveCount(0);

  await input.fill(code.toLowerCase());
  await submit.click();
  await expect(page.getByTestId("header-balance")).toHaveText("¥50.00");
  const row = page.getByTestId("credits-table").locator("tbody tr").filter({ hasText: `****-${code.slice(-4)}` });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("Redemption code");
  await expect(row).toContainText("¥50.00");
  await expect(row).toContainText("Succeeded");
  await expect(page.getByTestId("credits-total")).toHaveText("Total credited: ¥50.00");
  await expect(input).toHaveValue("");

  await input.fill(code);
  await submit.click();
  await expect(page.getByText("this redemption code has already been used")).toBeVisible();
  await expect(submit).toHaveAccessibleName("Redeem");
  await expect(page.getByTestId("header-balance")).toHaveText("¥50.00");
  expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
});

test("CSV export downloads the rows shown for the date filter", async ({ page, request }) => {
  const seed = readSeedCodes();
  const token = await openChargeDetails(page, request);
  for (const i of SEED_CODES_FOR.creditsExport) {
    const res = await request.post("/api/v1/console/redeem", { headers: { authorization: `Bearer ${token}` }, data: { code: seed.codes[i] } });
    expect(res.status()).toBe(200);
  }
  await page.reload();
  const today = beijingDay();
  await page.getByTestId("credits-from").fill(today);
  await page.getByTestId("credits-to").fill(today);
  const rows = page.getByTestId("credits-table").locator("tbody tr.ant-table-row");
  await expect(rows).toHaveCount(2);
  await expect(page.getByTestId("credits-total")).toHaveText("Total credited: ¥100.00");
  const shown = (await rows.allInnerTexts()).map((text) => text.split(/\t|\n/).map((cell) => cell.trim()).filter(Boolean));

  const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("credits-export").click()]);
  expect(download.suggestedFilename()).toMatch(/^credits-\d{4}-\d{2}-\d{2}\.csv$/);
  const lines = fs.readFileSync((await download.path())!, "utf8").trimEnd().split("\r\n");
  expect(lines[0]).toBe("time,method,amount,status,reference");
  const exported = lines.slice(1).map((line) => line.split(","));
  expect(exported).toHaveLength(shown.length);
  exported.forEach(([, method, amount, status, reference], i) => {
    expect(method).toBe("redemption");
    expect(status).toBe("succeeded");
    expect(shown[i]).toEqual(expect.arrayContaining([`¥${amount}`, reference]));
  });

  await page.getByTestId("credits-from").fill(beijingDay(-3));
  await page.getByTestId("credits-to").fill(beijingDay(-1));
  await expect(page.getByTestId("credits-table")).toContainText("No credits yet");
  await expect(page.getByTestId("credits-total")).toHaveText("Total credited: ¥0.00");
});

test("exports made after midnight in Beijing, before midnight in UTC, are named for the Beijing day", async ({ page, request }) => {
  // 01:00 in Beijing is 17:00 the day before in UTC: the latest such moment that has passed, so
  // the pages' date limits (the call log keeps 90 days) still admit it.
  const at = new Date();
  at.setUTCHours(17, 0, 0, 0);
  if (at.getTime() > Date.now()) at.setTime(at.getTime() - 86_400_000);
  const day = beijingDate(at);
  expect(day).not.toBe(at.toISOString().slice(0, 10));
  await page.clock.setFixedTime(at);
  await openChargeDetails(page, request);

  const exported = async (button: string) => {
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId(button).click()]);
    return download.suggestedFilename();
  };
  expect(await exported("credits-export")).toBe(`credits-${day}.csv`);
  await page.goto("/console/billing-details");
  expect(await exported("billing-export")).toBe(`billing-${day}.csv`);
  await page.goto("/console/billing-details?tab=calls");
  expect(await exported("calls-export")).toBe(`calls-${day}.csv`);
});

test("top up with Alipay: the enabled method is offered, the cashier pays, the balance and the row update", async ({ page, request }) => {
  await openChargeDetails(page, request);
  await expect(page.getByTestId("header-balance")).toHaveText("¥0.00");
  await expect(page.getByTestId("console-charge-details")).toContainText("Redeem a code or top up online here");
  const amount = page.getByTestId("top-up-amount");
  await amount.fill("0.50");
  await page.getByTestId("pay-alipay-page").click();
  await expect(page.getByText("enter an amount from ¥1.00 to ¥50000.00 with at most 2 decimals")).toBeVisible();

  await amount.fill("12.30");
  await page.getByTestId("pay-alipay-page").click();
  // The local fake's cashier: it shows the page only if the app's RSA2 signature verifies.
  await expect(page.locator("h1")).toHaveText("Pay ¥12.30");
  await page.getByRole("button", { name: "Pay" }).click();

  await page.waitForURL(/\/console\/charge-details$/);
  await expect(page.getByTestId("header-balance")).toHaveText("¥12.30");
  const row = page.getByTestId("credits-table").locator("tbody tr.ant-table-row").first();
  await expect(row).toContainText("Alipay");
  await expect(row).toContainText("¥12.30");
  await expect(row).toContainText("Succeeded");
});

test("a site with no online payment method (the embedded defaults): the page offers only what it has, a code to redeem, in English and Chinese", async ({ page }) => {
  const server = await startOwnServer("credits-no-payments");
  try {
    const api = await playwrightRequest.newContext({ baseURL: server.base });
    const { token } = await loginViaApi(api, undefined, "", server);
    await signInPage(page, token, server);
    await page.goto(`${server.base}/console/charge-details`);
    const page_ = page.getByTestId("console-charge-details");
    await expect(page.getByTestId("redeem-code")).toBeVisible();
    await expect(page_).toContainText("Redeem a code here, and buy packages of a tool's calls from your balance.");
    await expect(page_).not.toContainText(/top up online/i);
    await page.evaluate(() => window.localStorage.setItem("lang", "zh-CN"));
    await page.reload();
    await expect(page.getByTestId("redeem-code")).toBeVisible();
    await expect(page_).toContainText("您可以在这里使用兑换码，也可以用余额购买工具的次数包。");
    await expect(page_).not.toContainText("在线充值");
    await api.dispose();
  } finally {
    await server.close();
  }
});
