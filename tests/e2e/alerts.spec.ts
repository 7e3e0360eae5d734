import { createHmac } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect as baseExpect, test } from "@playwright/test";
import { runAdminCli } from "./support/admin-cli";
import { opened } from "./support/dialogs";
import { loginViaApi, signInPage } from "./support/auth";
import { chooseOption } from "./support/selects";

// Each test signs in, runs the operator CLI or the key form and waits for the alerts job: on a
// loaded machine that takes longer than the suite's 30 s default.
test.describe.configure({ timeout: 120_000 });
const expect = baseExpect.configure({ timeout: 30_000 });

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A local webhook receiver, as a user's server would be. */
async function startReceiver() {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { received, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, close: () => server.close() };
}

function signatureValid(secret: string, message: Received): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const signed = `${message.headers["webhook-id"] as string}.${message.headers["webhook-timestamp"] as string}.${message.body}`;
  return message.headers["webhook-signature"] === `v1,${createHmac("sha256", key).update(signed).digest("base64")}`;
}

test("a malformed threshold shows its error above the field's help, and the field keeps then regains its height", async ({ page, request }) => {
  const { token } = await loginViaApi(request);
  await signInPage(page, token);
  await page.goto("/console/info");
  const field = page.getByRole("textbox", { name: "Alert below" });
  const item = page.locator(".ant-form-item").filter({ has: field });
  const help = item.getByText("Leave empty to turn alerts off.");
  await expect(help).toBeVisible();
  const before = (await item.boundingBox())!.height;

  await field.fill("12.5.0");
  const error = item.getByText("threshold must be an amount such as 100 or 12.50 (at most 6 decimals)");
  await expect(error).toBeVisible();
  await expect(help).toBeVisible();
  expect((await error.boundingBox())!.y).toBeLessThan((await help.boundingBox())!.y);
  // While an error shows, antd holds the space under the field (its margin and the help's height,
  // which decision 041 measures only then) so the item does not jump when the error goes.
  const helpHeight = (await help.boundingBox())!.height;
  const held = await item.locator(".ant-form-item-additional").evaluate((el) => parseFloat(getComputedStyle(el).minHeight));
  expect(held).toBeGreaterThan(helpHeight + 10);

  await field.fill("12.5");
  await expect(error).toBeHidden();
  await expect(help).toBeVisible();
  await expect.poll(async () => (await item.boundingBox())!.height).toBe(before);
});

test("a double click on Save saves the alerts once, with one webhook secret shown, the one that signs", async ({ page, request }) => {
  const receiver = await startReceiver();
  try {
    const { token } = await loginViaApi(request);
    await signInPage(page, token);
    await page.goto("/console/info");
    await expect(page.getByRole("textbox", { name: "Alert below" })).toHaveValue("");
    const saves: string[] = [];
    page.on("request", (req) => {
      if (req.method() === "PUT" && new URL(req.url()).pathname === "/api/v1/console/alerts") saves.push(req.url());
    });

    await page.getByRole("textbox", { name: "Alert below" }).fill("1");
    await page.getByRole("textbox", { name: "Webhook URL (optional)" }).fill(receiver.url);
    await page.getByTestId("save-alerts").dblclick();
    const secret = await page.getByTestId("webhook-secret").inputValue();
    expect(secret).toMatch(/^whsec_/);
    await expect(page.locator(".ant-message").getByText("Alert settings saved", { exact: true })).toHaveCount(1);
    expect(saves).toHaveLength(1);

    await page.getByTestId("send-test-event").click();
    await expect(page.getByTestId("alert-deliveries").locator("tbody tr").filter({ hasText: "Test" }).getByTestId("delivery-status")).toHaveText("Delivered");
    expect(signatureValid(secret, receiver.received[0]!)).toBe(true);
  } finally {
    receiver.close();
  }
});

test("set a threshold and a webhook, send a test event, and see a low-balance alert delivered", async ({ page, request }) => {
  const receiver = await startReceiver();
  try {
    const { token, phone } = await loginViaApi(request);
    expect((await runAdminCli("credit", phone, "1", "--reason", "alerts e2e")).code).toBe(0);
    await signInPage(page, token);
    await page.goto("/console/info");
    await expect(page.getByRole("textbox", { name: "Alert below" })).toHaveValue("");

    await page.getByRole("textbox", { name: "Alert below" }).fill("1");
    await page.getByRole("textbox", { name: "Webhook URL (optional)" }).fill(receiver.url);
    await page.getByTestId("save-alerts").click();
    const secret = await page.getByTestId("webhook-secret").inputValue();
    expect(secret).toMatch(/^whsec_/);

    await page.getByTestId("send-test-event").click();
    const rows = page.getByTestId("alert-deliveries").locator("tbody tr");
    await expect(rows.filter({ hasText: "Test" }).getByTestId("delivery-status")).toHaveText("Delivered");
    await expect(rows.filter({ hasText: "Test" }).getByTestId("delivery-attempts")).toContainText("204");
    expect(receiver.received).toHaveLength(1);
    expect(signatureValid(secret, receiver.received[0]!)).toBe(true);
    expect(JSON.parse(receiver.received[0]!.body)).toMatchObject({ type: "test" });

    // One call of the echo tool takes the balance from 1.00 to just below it.
    const bearer = { authorization: `Bearer ${token}` };
    const key = await request.post("/api/v1/console/keys", { headers: bearer, data: { name: "alerts" } });
    const call = await request.post("/v1/tools/echo", { headers: { authorization: `Bearer ${(await key.json()).secret as string}` }, data: { hi: 1 } });
    expect(call.status()).toBe(200);
    // The alerts job finds the crossing on its next run; the page shows it once reloaded after that.
    await expect.poll(() => receiver.received.some((m) => JSON.parse(m.body).type === "balance.low"), { timeout: 15_000 }).toBe(true);
    await page.reload();
    const low = page.getByTestId("alert-deliveries").locator("tbody tr").filter({ hasText: "Low balance" });
    await expect(low).toHaveCount(2, { timeout: 15_000 });
    await expect(low.filter({ hasText: "SMS" }).getByTestId("delivery-status")).toHaveText("Delivered", { timeout: 15_000 });
    await expect(low.filter({ hasText: "Webhook" }).getByTestId("delivery-status")).toHaveText("Delivered", { timeout: 15_000 });
    const alert = receiver.received.find((m) => JSON.parse(m.body).type === "balance.low")!;
    expect(signatureValid(secret, alert)).toBe(true);
    expect(JSON.parse(alert.body)).toMatchObject({ data: { balance: "0.9999", threshold: "1.00" } });
  } finally {
    receiver.close();
  }
});

test("a daily spend limit shows the day's spend and when it resets on the keys page", async ({ page, request }) => {
  const { token } = await loginViaApi(request);
  const bearer = { authorization: `Bearer ${token}` };
  await signInPage(page, token);
  await page.goto("/console/api-keys");
  await page.getByTestId("create-key").click();
  const dialog = await opened(page.getByRole("dialog", { name: "Create an API key" }));
  await dialog.getByLabel("Name").fill("daily");
  await dialog.getByLabel("Spend limit").fill("2");
  await chooseOption(page, dialog.locator(".ant-select").filter({ has: page.getByRole("combobox", { name: "Limit counts" }) }), "per day (Beijing time)");
  await page.getByTestId("submit-key").click();
  await expect(page.getByTestId("new-key-secret")).toBeVisible();
  const keys = await (await request.get("/api/v1/console/keys", { headers: bearer })).json();
  expect(keys.keys[0]).toMatchObject({ name: "daily", spendLimit: "2.00", spendLimitPeriod: "day", periodSpent: "0.00" });
  await page.getByTestId("close-new-key").click();
  const row = page.getByTestId("key-row").filter({ hasText: "daily" });
  await expect(row.getByTestId("key-spend")).toHaveText("¥0.00 / ¥2.00");
  await expect(row.getByTestId("key-spend-period")).toContainText("per day (Beijing time) · resets");
});
