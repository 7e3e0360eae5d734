import { expect, test, type APIRequestContext } from "@playwright/test";
import { loginViaApi, signInPage } from "./support/auth";
import { SEED_CODES_FOR, readSeedCodes } from "./support/seed-codes";
import { cellsUnderFixedColumns } from "./support/fixed-columns";
import { chooseOption } from "./support/selects";

/** A key of a fresh user (balance 0), and a call with it that fails; returns the call's request id. */
async function failedCalls(request: APIRequestContext) {
  const { token } = await loginViaApi(request);
  const auth = { authorization: `Bearer ${token}` };
  const newKey = async (name: string) => {
    const res = await request.post("/api/v1/console/keys", { data: { name }, headers: auth });
    expect(res.status(), await res.text()).toBe(201);
    return (await res.json()) as { key: { id: number }; secret: string };
  };
  const poor = await newKey("poor key");
  const lowBalance = await request.post("/v1/tools/qrcode", { data: { text: "hi", format: "svg" }, headers: { authorization: `Bearer ${poor.secret}` } });
  expect(lowBalance.status()).toBe(402);

  const off = await newKey("switched off");
  const disabled = await request.patch(`/api/v1/console/keys/${off.key.id}`, { data: { enabled: false }, headers: auth });
  expect(disabled.status(), await disabled.text()).toBe(200);
  const refused = await request.post("/v1/tools/qrcode", { data: { text: "hi" }, headers: { authorization: `Bearer ${off.secret}` } });
  expect(refused.status()).toBe(401);
  // The log is written off the calls' path, in batches a moment apart: wait until both are in.
  for (const call of [lowBalance, refused]) {
    await expect.poll(async () => (await request.get(`/api/v1/console/calls/${call.headers()["x-request-id"]}`, { headers: auth })).status()).toBe(200);
  }
  return {
    token,
    lowBalance: { requestId: lowBalance.headers()["x-request-id"]!, message: ((await lowBalance.json()) as { error: { message: string } }).error.message },
    disabled: { requestId: refused.headers()["x-request-id"]! },
  };
}

test("a call that failed is found in billing details by its request id, and the view lives in the URL", async ({ page, request }) => {
  const { token, lowBalance, disabled } = await failedCalls(request);
  await signInPage(page, token);

  await page.goto("/console/billing-details");
  await page.getByTestId("tab-calls").click();
  await expect(page).toHaveURL(/\/console\/billing-details\?tab=calls$/);
  const table = page.getByTestId("calls-table");
  await expect(table.getByTestId("call-outcome")).toHaveText(["Key disabled", "Insufficient balance"]);
  await expect(page.getByText("Calls are kept 90 days.", { exact: false })).toBeVisible();

  // The request-id box asks the server for that one call, whatever page it is on.
  const idBox = page.getByRole("searchbox", { name: /^Find a request ID/ });
  await idBox.fill(lowBalance.requestId);
  await idBox.press("Enter");
  const drawer = page.getByTestId("call-drawer");
  await expect(drawer.getByTestId("call-detail")).toBeVisible();
  await expect(drawer.getByTestId("call-outcome")).toHaveText("Insufficient balance");
  await expect(drawer.getByTestId("call-error")).toHaveText(`insufficient_balance${lowBalance.message}`);
  await expect(drawer.getByTestId("call-timeline")).toContainText("received: 0 ms");
  await expect(page).toHaveURL(new RegExp(`request=${lowBalance.requestId}`));

  // Reloaded, the same view opens again: the open call is in the URL.
  await page.reload();
  await expect(page.getByTestId("call-drawer").getByTestId("call-outcome")).toHaveText("Insufficient balance");
  await page.getByTestId("call-drawer").getByRole("button", { name: "Close" }).click();
  await expect(page).toHaveURL(/\/console\/billing-details\?tab=calls$/);

  // A shared link with a filter shows only the calls it names.
  await page.goto("/console/billing-details?tab=calls&outcome=key_disabled&charged=false");
  await expect(page.getByTestId("calls-table").getByTestId("call-outcome")).toHaveText(["Key disabled"]);
  await expect(page.getByTestId("calls-outcome")).toContainText("Key disabled");
  await expect(page.getByTestId("calls-table")).toContainText("switched off");
  await expect(page.getByTestId("calls-table")).toContainText("Not charged: refused (Key disabled)");
  await page.getByTestId("calls-table").getByTestId("call-open").click();
  await expect(page.getByTestId("call-drawer").getByTestId("call-outcome")).toHaveText("Key disabled");
  await expect(page).toHaveURL(new RegExp(`request=${disabled.requestId}`));

  // An id none of the user's calls has is said so, not shown as an empty drawer.
  await page.goto("/console/billing-details?tab=calls&request=no-such-call");
  await expect(page.getByTestId("call-not-found")).toHaveText("None of your calls in the last 90 days has request ID no-such-call.");
});

test("at a laptop's width each call's request id, the way to its detail, is in view without a sideways scroll", async ({ page, request }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const { token } = await failedCalls(request);
  await signInPage(page, token);
  await page.goto("/console/billing-details?tab=calls");
  const table = page.getByTestId("calls-table");
  await expect(table.getByTestId("call-outcome")).toHaveCount(2);
  // The table's own box is what shows; a cell beyond its right edge is cut off ("c9" of "c94169…").
  const shown = (await table.locator(".ant-table-content").boundingBox())!;
  for (const open of await table.getByTestId("call-open").all()) {
    const box = (await open.boundingBox())!;
    expect(box.x + box.width, "the request id's right edge").toBeLessThanOrEqual(shown.x + shown.width);
  }
});

for (const locale of ["en-US", "zh-CN"] as const) {
  test.describe(`at a laptop's width, ${locale}`, () => {
    test.use({ viewport: { width: 1280, height: 800 }, locale });

    test("a refused call's amount, why it was not charged, and how long it took are beside the fixed request id, not under it", async ({ page, request }) => {
      const { token } = await loginViaApi(request);
      const auth = { authorization: `Bearer ${token}` };
      const key = await request.post("/api/v1/console/keys", { data: { name: "checkout service, Shanghai production" }, headers: auth });
      expect(key.status(), await key.text()).toBe(201);
      const { secret } = (await key.json()) as { secret: string };
      const refused = await request.post("/v1/tools/qrcode", { data: { text: "hi", format: "svg" }, headers: { authorization: `Bearer ${secret}` } });
      expect(refused.status()).toBe(402);
      await expect.poll(async () => (await request.get(`/api/v1/console/calls/${refused.headers()["x-request-id"]}`, { headers: auth })).status()).toBe(200);
      await signInPage(page, token);
      await page.goto("/console/billing-details?tab=calls");
      const table = page.getByTestId("calls-table");
      await expect(table.getByTestId("call-outcome")).toHaveCount(1);
      expect(await cellsUnderFixedColumns(table), "cells under the time or request id columns").toEqual([]);
    });
  });
}

test.describe("in Chinese", () => {
  test.use({ locale: "zh-CN" });

  test("the all-calls tab, its filters and a call's detail are in Chinese", async ({ page, request }) => {
    const { token, lowBalance } = await failedCalls(request);
    await signInPage(page, token);
    await page.goto(`/console/billing-details?tab=calls&request=${lowBalance.requestId}`);
    await expect(page.getByTestId("tab-calls")).toHaveText("全部调用");
    const drawer = page.getByTestId("call-drawer");
    await expect(drawer.getByText("调用方收到的错误")).toBeVisible();
    await expect(drawer.getByTestId("call-outcome")).toHaveText("余额不足");
    await drawer.getByRole("button", { name: "Close" }).or(drawer.getByRole("button", { name: "关闭" })).click();
    await expect(page.getByTestId("calls-table")).toContainText("未扣费：已拒绝（余额不足）");
  });

  test("an outcome shows as its Chinese label, never its code: a served call and failed ones, in the table, the filter and the drawer", async ({ page, request }) => {
    const { token } = await failedCalls(request);
    const auth = { authorization: `Bearer ${token}` };
    const redeemed = await request.post("/api/v1/console/redeem", { data: { code: readSeedCodes().codes[SEED_CODES_FOR.callLog] }, headers: auth });
    expect(redeemed.status(), await redeemed.text()).toBe(200);
    const key = await request.post("/api/v1/console/keys", { data: { name: "paid key" }, headers: auth });
    expect(key.status(), await key.text()).toBe(201);
    const served = await request.post("/v1/tools/echo", { data: { hello: "world" }, headers: { authorization: `Bearer ${((await key.json()) as { secret: string }).secret}` } });
    expect(served.status(), await served.text()).toBe(200);
    const servedId = served.headers()["x-request-id"]!;
    await expect.poll(async () => (await request.get(`/api/v1/console/calls/${servedId}`, { headers: auth })).status()).toBe(200);
    await signInPage(page, token);

    await page.goto("/console/billing-details?tab=calls");
    const table = page.getByTestId("calls-table");
    await expect(table.getByTestId("call-outcome")).toHaveText(["成功", "密钥已停用", "余额不足"]);
    await expect(table).toContainText("未扣费：已拒绝（余额不足）");
    for (const code of ["served", "key_disabled", "insufficient_balance"]) await expect(table).not.toContainText(code);

    // The filter offers the labels, and the one picked shows as its label.
    await chooseOption(page, page.getByTestId("calls-outcome"), "余额不足");
    await expect(page).toHaveURL(/outcome=insufficient_balance/);
    await expect(table.getByTestId("call-outcome")).toHaveText(["余额不足"]);
    await expect(page.getByTestId("calls-outcome")).not.toContainText("insufficient_balance");

    await page.goto(`/console/billing-details?tab=calls&request=${servedId}`);
    const drawer = page.getByTestId("call-drawer");
    await expect(drawer.getByTestId("call-outcome")).toHaveText("成功");
    await expect(drawer.getByTestId("call-detail")).not.toContainText("served");
  });
});
