import { expect as baseExpect, test } from "@playwright/test";
import { runAdminCli } from "./support/admin-cli";
import { loginViaApi, signInPage } from "./support/auth";
import { sidewaysOverflow } from "./support/sideways";

// The machine running the suite may be loaded: wait longer than the default for the page to render.
const expect = baseExpect.configure({ timeout: 30_000 });

test("the header shows SPEC's two decimals, and the exact balance beside them when a credit of less than a cent makes them differ", async ({ page, request }) => {
  const { token, phone } = await loginViaApi(request);
  await signInPage(page, token);
  await page.goto("/console/info");
  await expect(page.getByTestId("header-balance")).toHaveText("¥0.00");
  await expect(page.getByTestId("header-balance-exact")).toHaveCount(0);

  const credited = await runAdminCli("credit", phone, "0.001", "--reason", "header balance e2e");
  expect(credited.code, credited.stderr).toBe(0);
  await page.reload();
  await expect(page.getByTestId("header-balance")).toHaveText("¥0.00");
  await expect(page.getByTestId("header-balance-exact")).toHaveText("(¥0.001)");

  const verified = await runAdminCli("ledger", "verify");
  expect(verified.code, verified.stdout + verified.stderr).toBe(0);
});

test("the header's balance follows what happened outside the page: moving between console pages shows it as the server has it, without a reload", async ({ page, request }) => {
  const { token, phone } = await loginViaApi(request);
  await signInPage(page, token);
  await page.goto("/console/info");
  await expect(page.getByTestId("header-balance")).toHaveText("¥0.00");
  await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));

  // Money that moved while the page was open: an operator's credit here, as calls made with curl would take it.
  const credited = await runAdminCli("credit", phone, "5", "--reason", "header balance e2e, outside the page");
  expect(credited.code, credited.stderr).toBe(0);
  await page.getByRole("menuitem", { name: "Billing details" }).click();
  await expect(page.getByTestId("header-balance")).toHaveText("¥5.00");
  expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
});

test("on a 390 px phone the exact balance is on the account page, and the header keeps the site's name whole", async ({ page, request }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const { token, phone } = await loginViaApi(request);
  const credited = await runAdminCli("credit", phone, "9.999676", "--reason", "header balance e2e, phone");
  expect(credited.code, credited.stderr).toBe(0);
  await signInPage(page, token);
  await page.goto("/console/info");
  await expect(page.getByTestId("account-balance")).toHaveText("¥9.99");
  await expect(page.getByTestId("account-balance-exact")).toHaveText("(¥9.999676)");
  await expect(page.getByTestId("header-balance")).toHaveText("¥9.99");
  await expect(page.getByTestId("header-balance-exact")).toBeHidden();
  const brand = page.locator(".console-header .brand");
  await expect(brand).toHaveText(/\S/);
  expect(await brand.evaluate((el) => el.scrollWidth - el.clientWidth), "the site's name is cut").toBeLessThanOrEqual(0);
  expect(await sidewaysOverflow(page), "the page scrolls sideways").toBeLessThanOrEqual(0);
});
