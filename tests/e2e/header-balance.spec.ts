import { expect as baseExpect, test } from "@playwright/test";
import { runAdminCli } from "./support/admin-cli";
import { loginViaApi, signInPage } from "./support/auth";

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
