import { expect as baseExpect, test } from "@playwright/test";
import { loginViaApi, signInPage } from "./support/auth";
import { scanAndPay } from "./support/fake-wechatpay";

// The machine running the suite may be loaded: wait longer than the default for the page to render.
const expect = baseExpect.configure({ timeout: 30_000 });
test.setTimeout(180_000);

test("top up with WeChat Pay: the card offers it, shows a QR code, and the payment lands without a reload", async ({ page, request }) => {
  const { token } = await loginViaApi(request);
  await signInPage(page, token);
  await page.goto("/console/charge-details");
  await expect(page.getByTestId("header-balance")).toHaveText("¥0.00");

  const pay = page.getByTestId("pay-wechat-qr");
  await expect(pay).toHaveText("WeChat Pay · Show a QR code");
  await page.getByTestId("top-up-amount").fill("8.80");
  const created = page.waitForResponse((r) => r.url().endsWith("/api/v1/console/payments") && r.request().method() === "POST");
  await pay.click();
  const order = (await (await created).json()) as { orderId: string; qrCode: string };
  expect(order.qrCode).toMatch(/^weixin:\/\/wxpay\/bizpayurl\?pr=/);

  const dialog = page.getByRole("dialog");
  await expect(dialog).toContainText("Scan with WeChat Pay to pay ¥8.80");
  await expect(dialog.getByTestId("payment-qr").locator("canvas")).toBeVisible();

  await scanAndPay(order.orderId);
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId("header-balance")).toHaveText("¥8.80");
  const row = page.getByTestId("credits-table").locator("tbody tr.ant-table-row").first();
  await expect(row).toContainText("WeChat Pay");
  await expect(row).toContainText(order.orderId);
});
