import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { loginViaApi, signInPage } from "./support/auth";
import { runAdminCli } from "./support/admin-cli";
import { opened } from "./support/dialogs";
import { cellsUnderFixedColumns } from "./support/fixed-columns";

test.use({ permissions: ["clipboard-read", "clipboard-write"] });

async function signIn(page: Page, request: APIRequestContext) {
  const { token } = await loginViaApi(request);
  await signInPage(page, token);
  return token;
}

const rows = (page: Page) => page.getByTestId("key-row");
const rowNamed = (page: Page, name: string) => rows(page).filter({ has: page.getByTestId("key-name").getByText(name, { exact: true }) });
const toastText = (page: Page, text: string) => page.locator(".ant-message").getByText(text, { exact: true });
const createDialog = (page: Page) => page.getByRole("dialog", { name: "Create an API key" });

async function createKeyViaApi(request: APIRequestContext, token: string, name: string): Promise<void> {
  const res = await request.post("/api/v1/console/keys", { data: { name }, headers: { authorization: `Bearer ${token}` } });
  expect(res.status()).toBe(201);
}

test("creates a key, shows it once with a copy button, and lists it masked after a reload", async ({ page, request }) => {
  await signIn(page, request);
  await page.goto("/console/api-keys");
  await expect(page.getByText("No API keys yet. Create one to call the tools.")).toBeVisible();

  await page.getByTestId("create-key").click();
  await opened(createDialog(page));
  await createDialog(page).getByLabel("Name").fill("deploy bot");
  await createDialog(page).getByLabel("Spend limit").fill("12.5");
  await createDialog(page).getByLabel("IP allowlist").fill("203.0.113.0/24\n2001:db8::/32");
  await page.getByTestId("submit-key").click();

  const secretDialog = page.getByRole("dialog", { name: "Your new API key" });
  await expect(secretDialog).toBeVisible();
  await expect(secretDialog.getByText("Copy this key now and keep it somewhere safe. For your security it will not be shown again.")).toBeVisible();
  const secret = await page.getByTestId("new-key-secret").inputValue();
  expect(secret).toMatch(/^tg_[A-Za-z0-9_-]{43}$/);

  await page.getByTestId("copy-key").click();
  await expect(toastText(page, "Copied to the clipboard")).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);

  await page.getByTestId("close-new-key").click();
  await expect(secretDialog).toBeHidden();
  const masked = `tg_…${secret.slice(-4)}`;
  const row = rowNamed(page, "deploy bot");
  await expect(row.getByTestId("key-masked")).toHaveText(masked);
  await expect(row.getByTestId("key-status")).toHaveText("active");
  await expect(row.getByTestId("key-spend")).toHaveText("¥0.00 / ¥12.50");
  await expect(row.getByTestId("key-ips")).toContainText("203.0.113.0/24");
  await expect(row.getByTestId("key-ips")).toContainText("2001:db8::/32");
  await expect(row).toContainText("never");

  await page.reload();
  await expect(rowNamed(page, "deploy bot").getByTestId("key-masked")).toHaveText(masked);
  await expect(page.getByTestId("new-key-secret")).toHaveCount(0);
  expect(await page.content()).not.toContain(secret.slice(3, 40));
});

test("a double click on Create makes one key, the one whose secret is shown", async ({ page, request }) => {
  const token = await signIn(page, request);
  await page.goto("/console/api-keys");
  await page.getByTestId("create-key").click();
  await opened(createDialog(page));
  await createDialog(page).getByLabel("Name").fill("double click");
  const created: number[] = [];
  page.on("response", (response) => {
    if (response.request().method() === "POST" && new URL(response.url()).pathname === "/api/v1/console/keys") created.push(response.status());
  });
  await page.getByTestId("submit-key").dblclick();

  const secret = await page.getByTestId("new-key-secret").inputValue();
  expect(secret).toMatch(/^tg_/);
  await page.getByTestId("close-new-key").click();
  await expect(rows(page)).toHaveCount(1);
  await expect(rowNamed(page, "double click").getByTestId("key-masked")).toHaveText(`tg_…${secret.slice(-4)}`);
  expect(created).toEqual([201]);
  const listed = await request.get("/api/v1/console/keys", { headers: { authorization: `Bearer ${token}` } });
  expect(((await listed.json()) as { keys: unknown[] }).keys).toHaveLength(1);
});

test("a double click on Save in the edit dialog saves the key once", async ({ page, request }) => {
  const token = await signIn(page, request);
  await createKeyViaApi(request, token, "limit me");
  await page.goto("/console/api-keys");
  const saves: string[] = [];
  page.on("request", (req) => {
    if (req.method() === "PATCH" && new URL(req.url()).pathname.startsWith("/api/v1/console/keys/")) saves.push(req.url());
  });
  await rowNamed(page, "limit me").getByTestId("edit-key").click();
  const editDialog = await opened(page.getByRole("dialog", { name: "Edit API key" }));
  await editDialog.getByLabel("Spend limit").fill("2.5");
  await page.getByTestId("save-key").dblclick();
  await expect(editDialog).toBeHidden();
  await expect(toastText(page, "Key saved")).toHaveCount(1);
  await expect(rowNamed(page, "limit me")).toContainText("¥2.50");
  expect(saves).toHaveLength(1);
});

test("a spend limit at what the key has spent is saved with a warning, and the key then says its limit is reached", async ({ page, request }) => {
  const { token, phone } = await loginViaApi(request);
  await signInPage(page, token);
  expect((await runAdminCli("credit", phone, "1", "--reason", "spend limit e2e")).code).toBe(0);
  const created = await request.post("/api/v1/console/keys", { data: { name: "spent" }, headers: { authorization: `Bearer ${token}` } });
  const { secret, key } = (await created.json()) as { secret: string; key: { id: number } };
  const call = (hello: string) => request.post("/v1/tools/echo", { data: { hello }, headers: { authorization: `Bearer ${secret}` } });
  expect((await call("first")).status()).toBe(200);
  const listed = await request.get("/api/v1/console/keys", { headers: { authorization: `Bearer ${token}` } });
  const spent = ((await listed.json()) as { keys: { id: number; spent: string }[] }).keys.find((k) => k.id === key.id)!.spent;
  expect(spent).not.toBe("0.00");

  await page.goto("/console/api-keys");
  await expect(rowNamed(page, "spent").getByTestId("key-limit-reached")).toHaveCount(0);
  await rowNamed(page, "spent").getByTestId("edit-key").click();
  const editDialog = await opened(page.getByRole("dialog", { name: "Edit API key" }));
  await editDialog.getByLabel("Spend limit").fill(spent);
  await expect(editDialog.getByText(`This key has already spent ¥${spent}: with this limit its calls are refused.`)).toBeVisible();
  await page.getByTestId("save-key").click();
  await expect(editDialog).toBeHidden();
  await expect(rowNamed(page, "spent").getByTestId("key-limit-reached")).toHaveText("spend limit reached");
  const refused = await call("second");
  expect(refused.status()).toBe(402);
  expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("spend_limit_reached");
});

test("renames, disables, enables and deletes a key", async ({ page, request }) => {
  const token = await signIn(page, request);
  await createKeyViaApi(request, token, "staging");
  await createKeyViaApi(request, token, "keep me");
  await page.goto("/console/api-keys");
  await expect(rows(page)).toHaveCount(2);

  await rowNamed(page, "staging").getByTestId("edit-key").click();
  const editDialog = page.getByRole("dialog", { name: "Edit API key" });
  await editDialog.getByLabel("Name").fill("staging (old)");
  await editDialog.getByLabel("Stop: refuse the call (402)").check();
  await page.getByTestId("save-key").click();
  await expect(editDialog).toBeHidden();
  await expect(toastText(page, "Key saved")).toBeVisible();
  const row = rowNamed(page, "staging (old)");
  await expect(row).toBeVisible();
  // The list says which keys stop when the free quota and packages run out; the others pay from the balance.
  await expect(row.getByTestId("key-prepaid-stop")).toHaveText("stops when prepaid units run out");
  await expect(rowNamed(page, "keep me").getByTestId("key-prepaid-stop")).toHaveCount(0);

  await row.getByTestId("toggle-key").click();
  await expect(row.getByTestId("key-status")).toHaveText("disabled");
  await expect(row.getByTestId("toggle-key")).toHaveText("Enable");
  await row.getByTestId("toggle-key").click();
  await expect(row.getByTestId("key-status")).toHaveText("active");

  await row.getByTestId("delete-key").click();
  const confirm = page.locator(".ant-popconfirm");
  await expect(confirm).toContainText('Delete the key "staging (old)"? Anything using it stops working at once.');
  await confirm.getByRole("button", { name: "Delete" }).click();
  await expect(toastText(page, "Key deleted")).toBeVisible();
  await expect(rows(page)).toHaveCount(1);
  await expect(rowNamed(page, "keep me")).toBeVisible();

  await page.reload();
  await expect(rows(page)).toHaveCount(1);
  await expect(rowNamed(page, "keep me").getByTestId("key-status")).toHaveText("active");
});

test("explains each invalid field and creates nothing", async ({ page, request }) => {
  const token = await signIn(page, request);
  await page.goto("/console/api-keys");
  await page.getByTestId("create-key").click();
  const dialog = await opened(createDialog(page));

  await page.getByTestId("submit-key").click();
  await expect(dialog.getByText("name is required")).toBeVisible();
  await dialog.getByLabel("Name").fill("x".repeat(65));
  await expect(dialog.getByText("use 64 characters or fewer for the name")).toBeVisible();
  await dialog.getByLabel("Name").fill("valid name");
  await expect(dialog.getByText("use 64 characters or fewer for the name")).toBeHidden();

  await dialog.getByLabel("Expiry date").fill("2020-01-01");
  await dialog.getByLabel("Expiry date").press("Enter");
  await expect(dialog.getByText("expiry must be in the future")).toBeVisible();

  await dialog.getByLabel("Spend limit").fill("12,50");
  await expect(dialog.getByText("spend limit must be an amount such as 100 or 12.50 (at most 6 decimals)")).toBeVisible();
  await dialog.getByLabel("Spend limit").fill("99999999999999");
  await expect(dialog.getByText("spend limit must be no more than 9223372036854.775807")).toBeVisible();
  await expect(dialog.getByText(/decimals/)).toHaveCount(0);
  await dialog.getByLabel("Spend limit").fill("0");
  await expect(dialog.getByText("spend limit must be greater than 0")).toBeVisible();

  await dialog.getByLabel("IP allowlist").fill("10.0.0.1\n10.0.0.0/33");
  await expect(dialog.getByText('"10.0.0.0/33" is not an IPv4 or IPv6 address or a CIDR range such as 10.0.0.0/8')).toBeVisible();

  await page.getByTestId("submit-key").click();
  await expect(page.getByRole("dialog", { name: "Your new API key" })).toHaveCount(0);
  await expect(dialog).toBeVisible();

  const list = await request.get("/api/v1/console/keys", { headers: { authorization: `Bearer ${token}` } });
  expect((await list.json()).keys).toEqual([]);
});

test.describe("in Chinese", () => {
  test.use({ locale: "zh-CN" });

  test("a spend limit too large for any amount says the largest accepted, not a rule about decimals", async ({ page, request }) => {
    await signIn(page, request);
    await page.goto("/console/api-keys");
    await page.getByTestId("create-key").click();
    const dialog = await opened(page.getByRole("dialog", { name: "创建 API 密钥" }));
    const limit = dialog.locator("#api-key_spendLimit");
    await limit.fill("99999999999999");
    await limit.blur();
    await expect(dialog.getByText("消费限额不能超过 9223372036854.775807")).toBeVisible();
    await expect(dialog.getByText(/小数/)).toHaveCount(0);
  });
});

for (const locale of ["en-US", "zh-CN"] as const) {
  test.describe(`on a 1280 px screen, ${locale}`, () => {
    test.use({ viewport: { width: 1280, height: 800 }, locale });

    test("a used key's columns, its spending among them, are beside the fixed actions, not under them", async ({ page, request }) => {
      const { token, phone } = await loginViaApi(request);
      expect((await runAdminCli("credit", phone, "1", "--reason", "wide table e2e")).code).toBe(0);
      const created = await request.post("/api/v1/console/keys", {
        data: { name: "used key", spendLimit: "5", spendLimitPeriod: "month" },
        headers: { authorization: `Bearer ${token}` },
      });
      expect(created.status(), await created.text()).toBe(201);
      const { secret } = (await created.json()) as { secret: string };
      expect((await request.post("/v1/tools/echo", { data: { hello: "wide" }, headers: { authorization: `Bearer ${secret}` } })).status()).toBe(200);
      await signInPage(page, token);
      await page.goto("/console/api-keys");
      const row = rowNamed(page, "used key");
      await expect(row.getByTestId("key-spend")).toHaveText(/^¥0\.0001 \/ ¥5\.00$/);
      await expect(row.getByTestId("key-spend-period")).toBeVisible();

      expect(await cellsUnderFixedColumns(page.locator(".ant-table")), "cells under the actions column").toEqual([]);
      // Whatever the browser shows at the start, middle and end of the spending is the spending itself.
      const shown = await row.getByTestId("key-spend").evaluate((el) => {
        const { left, right, top, height } = el.getBoundingClientRect();
        return [left + 2, (left + right) / 2, right - 2].map((x) => el.contains(document.elementFromPoint(x, top + height / 2)));
      });
      expect(shown).toEqual([true, true, true]);
    });
  });
}
