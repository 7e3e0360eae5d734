import { expect, test } from "@playwright/test";
import { loginViaApi, signInPage } from "./support/auth";
import { opened } from "./support/dialogs";
import { SEED_CODES_FOR, readSeedCodes } from "./support/seed-codes";
import { beijingDateTime, beijingIso } from "../../src/shared/beijing-time";
import { shortRequestId } from "../../src/shared/request-ids";

// A reader in another zone still reads Beijing time, with the zone written (decision 047).
test.use({ timezoneId: "America/New_York" });

test("a key created in the console is used for a call; billing details shows the row and the balance drops", async ({ page, request }) => {
  const { token } = await loginViaApi(request);
  const auth = { authorization: `Bearer ${token}` };
  const redeemed = await request.post("/api/v1/console/redeem", { data: { code: readSeedCodes().codes[SEED_CODES_FOR.billing] }, headers: auth });
  expect(redeemed.status(), await redeemed.text()).toBe(200);
  await signInPage(page, token);

  await page.goto("/console/api-keys");
  await page.getByTestId("create-key").click();
  const dialog = await opened(page.getByRole("dialog", { name: "Create an API key" }));
  await dialog.getByLabel("Name").fill("billing e2e");
  await page.getByTestId("submit-key").click();
  const secret = await page.getByTestId("new-key-secret").inputValue();
  await page.getByTestId("close-new-key").click();
  await expect(page.getByTestId("header-balance")).toHaveText("¥50.00");

  const call = await request.post("/v1/tools/qrcode", {
    data: { text: "https://example.com", format: "svg" },
    headers: { authorization: `Bearer ${secret}` },
  });
  expect(call.status()).toBe(200);
  expect(call.headers()["content-type"]).toContain("image/svg+xml");
  expect(call.headers()["x-tollgate-cost"]).toBe("0.002");
  const requestId = call.headers()["x-request-id"]!;

  await page.getByRole("menuitem", { name: "Billing details" }).click();
  await expect(page).toHaveURL(/\/console\/billing-details$/);
  const table = page.getByTestId("billing-table");
  // The table names the tool as the tool filter does, not by its id.
  await expect(table.getByRole("row").filter({ hasText: "QR code" })).toHaveCount(1);
  const row = table.getByRole("row").filter({ hasText: "QR code" });
  await expect(row).not.toContainText("qrcode");
  await page.getByTestId("billing-tool").click();
  await expect(page.locator(".ant-select-item-option").filter({ hasText: "QR code" })).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(row).toContainText("billing e2e");
  await expect(row).toContainText("¥0.002");
  await expect(row).toContainText(shortRequestId(requestId));
  await expect(page.getByTestId("billing-total")).toHaveText("1 call, ¥0.002 in total");
  const listed = await request.get("/api/v1/console/billing", { headers: auth });
  const chargedAt: string = (await listed.json()).items[0].time;
  await expect(row).toContainText(beijingDateTime(chargedAt));

  // The header balance is refreshed on the next page load; the stored balance is floored to 2 decimals.
  await page.reload();
  await expect(page.getByTestId("header-balance")).toHaveText("¥49.99");

  const csv = page.waitForEvent("download");
  await page.getByTestId("billing-export").click();
  const download = await csv;
  const text = await (await download.createReadStream()).toArray().then((chunks) => Buffer.concat(chunks).toString("utf8"));
  // The LLM columns (model, tokens, amounts, origin) stay empty for a tool priced per call.
  expect(text.trim().split("\r\n")).toEqual([
    "time,tool,key,units,amount,request_id,model,input_tokens,cached_input_tokens,output_tokens,input_amount,cached_input_amount,output_amount,tokens_origin,paid_by,free_units,package_units,grant_units,balance_units,package_bought",
    `${beijingIso(chargedAt)},qrcode,billing e2e,1,0.002,${requestId},,,,,,,,,balance,0,0,0,1,`,
  ]);
});
