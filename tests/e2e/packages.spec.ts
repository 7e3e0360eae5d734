/**
 * Issue 37 as a user meets it: on charge details a user sees a tool's free quota, buys a package
 * of another tool from the balance after a confirmation naming its price, units, expiry and that
 * unused units are not refunded automatically, calls the tool with a key, and billing details name
 * the package that paid. A package the balance does not cover is refused in the server's words.
 * An operator's refunds and debit show on the same user's statements. The spec runs a server of its
 * own: the shipped catalog sells no packages.
 */
import fs from "node:fs";
import path from "node:path";
import { expect, request as playwrightRequest, test, type Locator } from "@playwright/test";
import { refundChargedCall, refundLot } from "../../src/server/modules/ledger/index";
import { debit } from "../../src/server/modules/ledger/ledger";
import { createCodes } from "../../src/server/modules/redemption/service";
import { beijingDate, beijingDateTime } from "../../src/shared/beijing-time";
import { parseMoney } from "../../src/shared/money";
import { fundedUserWithKey, loginViaApi, signInPage } from "./support/auth";
import { axeViolations } from "./support/axe";
import { opened } from "./support/dialogs";
import { startOwnServer, type OwnServer } from "./support/own-server";
import { chooseOption } from "./support/selects";
import { sidewaysOverflow } from "./support/sideways";
import { shortRequestId } from "../../src/shared/request-ids";

// A reader in another zone still reads Beijing time, with the zone written (decision 047); axe is
// injected as a script, which the pages' CSP would refuse.
test.use({ timezoneId: "America/New_York", bypassCSP: true });

let server: OwnServer;
let redemptionCode: string;
let operatorCode: string;

test.beforeAll(async () => {
  // The server's start boots PGlite and migrates a new database: 11 to 33 s on a loaded machine.
  test.setTimeout(120_000);
  const defaults = JSON.parse(fs.readFileSync("config/tools.json", "utf8")) as { tools: { id: string }[] };
  const plans: Record<string, object> = {
    echo: { freeQuota: { units: 2, period: "day" } },
    qrcode: {
      packages: [
        { id: "starter", name: "Starter", units: 5, price: "1.00", validDays: 30, translations: { "zh-CN": { name: "入门包" } } },
        { id: "bulk", name: "Bulk", units: 100000, price: "100.00", validDays: 365 },
        // Untranslated, so the Chinese page shows it in English: the longest label in the list.
        { id: "hundred", name: "100 QR codes", units: 100, price: "0.15", validDays: 30 },
      ],
    },
  };
  server = await startOwnServer("packages", (folder) => {
    const catalog = path.join(folder, "tools.json");
    fs.writeFileSync(catalog, JSON.stringify({ tools: defaults.tools.map((tool) => ({ ...tool, ...plans[tool.id] })) }));
    return { TOOLS_CATALOG: catalog };
  });
  [redemptionCode, operatorCode] = (await createCodes(server.app.db, { amount: parseMoney("50"), count: 2, expiresAt: null, now: new Date() })).codes as [string, string];
});

test.afterAll(async () => {
  await server?.close();
});

test("a user buys a package on charge details, calls the tool, and billing details name the package that paid", async ({ page }) => {
  const { api, token, auth, secret } = await fundedUserWithKey(server, redemptionCode, "packages e2e");

  await signInPage(page, token, server);
  await page.goto(`${server.base}/console/charge-details`);
  await expect(page.getByTestId("header-balance")).toHaveText("¥50.00");
  const card = page.getByTestId("lots-card");
  // Today's free quota of Echo is there before its first call, whole.
  const free = card.getByTestId("lots-table").getByRole("row").filter({ hasText: "Echo" });
  await expect(free).toContainText("Free quota");
  await expect(free).toContainText("2 / 2 calls");

  await chooseOption(page, card.getByTestId("buy-package-tool"), "QR code");
  await chooseOption(page, card.getByTestId("buy-package-package"), "Starter");
  await card.getByTestId("buy-package-submit").click();
  const dialog = await opened(page.getByRole("dialog", { name: "Buy Starter for QR code?" }));
  const terms = dialog.getByTestId("buy-package-terms");
  await expect(terms).toContainText("¥1.00");
  await expect(terms).toContainText("5 calls");
  await expect(terms).toContainText("(30 days after the purchase)");
  await expect(dialog).toContainText("Unused units are not refunded automatically.");
  expect(await axeViolations(page, "[data-testid=lots-card], .ant-modal"), "the lots and the confirmation").toEqual([]);
  await dialog.getByTestId("buy-package-pay").click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId("header-balance")).toHaveText("¥49.00");
  const bought = card.getByTestId("lots-table").getByRole("row").filter({ hasText: "QR code" });
  await expect(bought).toContainText("Starter");
  await expect(bought).toContainText("5 / 5 calls");
  await expect(bought).toContainText("Bought for ¥1.00");
  await expect(bought).toContainText("29 d 23 h left");
  const lots = (await (await api.get("/api/v1/console/lots", { headers: auth })).json()) as { lots: { id: number; toolId: string; expiresAt: string }[] };
  const expiresAt = lots.lots.find((lot) => lot.toolId === "qrcode")!.expiresAt;
  await expect(bought).toContainText(beijingDateTime(expiresAt));

  // A package the balance does not cover: refused in the server's words, nothing bought.
  await chooseOption(page, card.getByTestId("buy-package-package"), "Bulk");
  await card.getByTestId("buy-package-submit").click();
  const tooDear = await opened(page.getByRole("dialog", { name: "Buy Bulk for QR code?" }));
  await tooDear.getByTestId("buy-package-pay").click();
  await expect(tooDear.getByTestId("buy-package-refusal")).toHaveText("the package costs ¥100.00 and your balance is ¥49.00: top up, then buy again");
  await tooDear.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByTestId("header-balance")).toHaveText("¥49.00");

  const call = await api.post("/v1/tools/qrcode", { data: { text: "https://example.com", format: "svg" }, headers: { authorization: `Bearer ${secret}` } });
  expect(call.status()).toBe(200);
  expect([call.headers()["x-tollgate-cost"], call.headers()["x-quota-remaining"]]).toEqual(["0.00", "4"]);
  const requestId = call.headers()["x-request-id"]!;

  const echo = await api.post("/v1/tools/echo", { data: { hi: 1 }, headers: { authorization: `Bearer ${secret}` } });
  expect([echo.status(), echo.headers()["x-quota-remaining"]]).toEqual([200, "1"]);

  await page.goto(`${server.base}/console/billing-details`);
  const rowOf = (id: string) => page.getByTestId("billing-table").getByRole("row").filter({ hasText: shortRequestId(id) });
  const row = rowOf(requestId);
  await expect(row.getByTestId("billing-paid-by")).toHaveText(`package Starter, expires ${beijingDate(expiresAt)}`);
  await expect(row).toContainText("¥0.00");
  await expect(rowOf(echo.headers()["x-request-id"]!).getByTestId("billing-paid-by")).toHaveText("free 1/2 today");
  // The purchase is there too, below the calls, paid from the balance and counted in the total.
  const purchase = page.getByTestId("billing-table").getByRole("row").filter({ has: page.getByTestId("billing-purchase") });
  await expect(purchase.getByTestId("billing-purchase")).toHaveText(`package Starter bought, expires ${beijingDate(expiresAt)}`);
  await expect(purchase).toContainText("¥1.00");
  await expect(purchase.getByTestId("billing-paid-by")).toHaveText("balance");
  await expect(page.getByTestId("billing-total")).toHaveText("2 calls and 1 package, ¥1.00 in total");

  // The call log says the package paid, not that the call went uncharged, and counts its unit.
  await page.goto(`${server.base}/console/billing-details?tab=calls&request=${requestId}`);
  const drawer = page.getByTestId("call-drawer");
  await expect(drawer).toContainText("1 (1 of them paid from free quotas or packages)");
  await drawer.getByRole("button", { name: "Close" }).click();
  const logged = page.getByTestId("calls-table").getByRole("row").filter({ hasText: shortRequestId(requestId) });
  await expect(logged).toContainText("Paid from free quotas or packages");
  await expect(page.getByTestId("calls-table")).not.toContainText("refunded after the call ran too long");

  await api.dispose();
});

test("the operator's refund of a package, refund of a call and debit each show on the user's statements", async ({ page }) => {
  const { api, token, auth, secret } = await fundedUserWithKey(server, operatorCode, "operator e2e");
  const purchase = await api.post("/api/v1/console/packages/purchase", {
    data: { toolId: "qrcode", packageId: "starter" },
    headers: { ...auth, "idempotency-key": "operator-e2e-starter" },
  });
  expect(purchase.status()).toBe(201);
  const { lot: { id: lotId, expiresAt } } = (await purchase.json()) as { lot: { id: number; expiresAt: string } };
  const first = await api.post("/v1/tools/qrcode", { data: { text: "https://example.com", format: "svg" }, headers: { authorization: `Bearer ${secret}` } });
  expect([first.status(), first.headers()["x-quota-remaining"]]).toEqual([200, "4"]);
  await signInPage(page, token, server);

  // The operator refunds the package's 4 unused units: a credit on charge details, and the purchase says so.
  const refundedAt = new Date();
  expect(await refundLot(server.app.db, { lotId, reason: "tool retired", at: refundedAt })).toMatchObject({ ok: true, refunded: 800_000n });
  await page.goto(`${server.base}/console/charge-details`);
  const refundRow = page.getByTestId("credits-table").getByRole("row").filter({ hasText: "Package refund" });
  await expect(refundRow).toContainText("¥0.80");
  await expect(refundRow).toContainText("tool retired (package Starter, 4 of 5 units unused)");
  await page.goto(`${server.base}/console/billing-details`);
  await expect(page.getByTestId("billing-purchase")).toHaveText(`package Starter bought, expires ${beijingDate(expiresAt)}; unused units refunded on ${beijingDate(refundedAt)}`);

  // A call the balance paid, refunded by the operator (\`admin calls refund\`): its detail in the call log says so.
  const paid = await api.post("/v1/tools/qrcode", { data: { text: "https://example.com", format: "svg" }, headers: { authorization: `Bearer ${secret}` } });
  expect(paid.status()).toBe(200);
  const paidId = paid.headers()["x-request-id"]!;
  await expect.poll(async () => (await api.get(`/api/v1/console/calls/${paidId}`, { headers: auth })).status()).toBe(200);
  const callRefundedAt = new Date();
  const callRefund = await refundChargedCall(server.app.db, { requestId: paidId, reason: "ticket 12", now: callRefundedAt });
  expect(callRefund).toMatchObject({ refunded: parseMoney(paid.headers()["x-tollgate-cost"]!) });
  await page.goto(`${server.base}/console/billing-details?tab=calls&request=${paidId}`);
  await expect(page.getByTestId("call-drawer").getByTestId("call-operator-refund")).toHaveText(
    `¥${paid.headers()["x-tollgate-cost"]}, ${beijingDateTime(callRefundedAt)}: ticket 12 (call ${paidId})`,
  );
  // Charge details list the refund as a line of its own, with the reason and the call's request id;
  // billing details still show the call at what it cost, so the two add up to the balance.
  await page.goto(`${server.base}/console/charge-details`);
  const callRefundRow = page.getByTestId("credits-table").getByRole("row").filter({ hasText: "Call refund" });
  await expect(callRefundRow).toHaveCount(1);
  await expect(callRefundRow.getByRole("cell").nth(0)).toHaveText(beijingDateTime(callRefundedAt));
  await expect(callRefundRow.getByRole("cell").nth(2)).toHaveText(`¥${paid.headers()["x-tollgate-cost"]}`);
  await expect(callRefundRow).toContainText(`ticket 12 (call ${paidId})`);
  await page.goto(`${server.base}/console/billing-details`);
  await expect(page.getByTestId("billing-table").getByRole("row").filter({ hasText: shortRequestId(paidId) })).toContainText(`¥${paid.headers()["x-tollgate-cost"]}`);

  // An operator's debit (\`admin debit\`) is on charge details too, as a negative amount with its reason.
  if (!("userId" in callRefund)) throw new Error("the call was not refunded");
  await debit(server.app.db, { userId: callRefund.userId, amount: 500_000n, kind: "adjustment", method: "operator", reference: "manual fee", idempotencyKey: "operator:e2e-fee", at: new Date() });
  await page.goto(`${server.base}/console/charge-details`);
  const debitRow = page.getByTestId("credits-table").getByRole("row").filter({ hasText: "manual fee" });
  await expect(debitRow).toContainText("Operator adjustment");
  await expect(debitRow).toContainText("-¥0.50");
  await api.dispose();
});

/** How many lines an element's text takes on screen. */
const linesOf = (element: Locator) =>
  element.evaluate((node) => {
    const range = document.createRange();
    range.selectNodeContents(node);
    return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
  });


test.describe("in Chinese on a phone", () => {
  test.use({ locale: "zh-CN", viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test("a call its free quota paid says so in the call log and in its detail, in Chinese, within the screen", async ({ page }) => {
    const api = await playwrightRequest.newContext({ baseURL: server.base });
    const { token } = await loginViaApi(api, undefined, "", server);
    const auth = { authorization: `Bearer ${token}` };
    const key = await api.post("/api/v1/console/keys", { data: { name: "free quota e2e" }, headers: auth });
    const secret = ((await key.json()) as { secret: string }).secret;
    const call = await api.post("/v1/tools/echo", { data: { hi: 1 }, headers: { authorization: `Bearer ${secret}` } });
    expect([call.status(), call.headers()["x-tollgate-cost"], call.headers()["x-quota-remaining"]]).toEqual([200, "0.00", "1"]);
    const requestId = call.headers()["x-request-id"]!;
    // The call log is written in batches after the answer.
    await expect.poll(async () => ((await (await api.get("/api/v1/console/calls", { headers: auth })).json()) as { items: unknown[] }).items.length).toBe(1);

    await signInPage(page, token, server);
    await page.goto(`${server.base}/console/billing-details?tab=calls&request=${requestId}`);
    const drawer = page.getByTestId("call-drawer");
    await expect(drawer).toContainText("1（其中 1 由免费额度或次数包支付）");
    // The tool by its name in the reader's language, as everywhere else in the console.
    await expect(drawer).toContainText("回显");
    await drawer.getByRole("button", { name: "Close" }).or(drawer.getByRole("button", { name: "关闭" })).click();
    await expect(drawer).toBeHidden();
    const logged = page.getByTestId("calls-table").getByRole("row").filter({ hasText: shortRequestId(requestId) });
    await expect(logged).toContainText("回显");
    await expect(logged).toContainText("由免费额度或次数包支付");
    expect(await sidewaysOverflow(page), "the page scrolls sideways").toBeLessThanOrEqual(0);
    // Each table keeps its columns whole and scrolls: squeezed, Chinese breaks between any two
    // characters, down to a character a line.
    // On a phone the amount stands beside the time: the tool's cell is found by its name.
    expect(await linesOf(logged.getByRole("cell", { name: "回显", exact: true })), "lines of the call log's tool").toBe(1);
    await page.goto(`${server.base}/console/billing-details`);
    const billed = page.getByTestId("billing-table").getByRole("row").filter({ hasText: shortRequestId(requestId) });
    // On a phone the amount stands beside the time: the tool's cell is found by its name.
    const billedTool = billed.getByRole("cell", { name: "回显", exact: true });
    await expect(billedTool).toBeVisible();
    expect(await linesOf(billedTool), "lines of the billing row's tool").toBe(1);
    expect(await linesOf(billed.getByTestId("billing-paid-by")), "lines of what paid").toBe(1);

    // The free quota's lot on charge details: its tool's name on one line, not a character a line.
    await page.goto(`${server.base}/console/charge-details`);
    const toolCell = page.getByTestId("lots-table").getByRole("row").filter({ hasText: "免费额度" }).getByRole("cell").first();
    await expect(toolCell).toHaveText("回显");
    expect(await linesOf(toolCell), "lines of the lot's tool").toBe(1);
    expect(await sidewaysOverflow(page), "the page scrolls sideways").toBeLessThanOrEqual(0);
    await api.dispose();
  });

  test("a package with a long name is chosen and confirmed within the screen", async ({ page }) => {
    const api = await playwrightRequest.newContext({ baseURL: server.base });
    const { token } = await loginViaApi(api, undefined, "", server);
    await signInPage(page, token, server);
    await page.goto(`${server.base}/console/charge-details`);
    const card = page.getByTestId("lots-card");
    const select = card.getByTestId("buy-package-package");
    await expect(select).toBeVisible();
    const rightOf = async (element: Locator) => {
      const box = (await element.boundingBox())!;
      return box.x + box.width;
    };
    // Where the card's content ends, inside its padding.
    const cardRight = () => card.locator(".ant-card-body").evaluate((body) => body.getBoundingClientRect().right - parseFloat(getComputedStyle(body).paddingRight));
    // Bare, the field was already 280 px wide beside its label: into the card's padding.
    expect(await rightOf(select), "the empty package field's right edge").toBeLessThanOrEqual(await cardRight());

    await chooseOption(page, card.getByTestId("buy-package-tool"), "二维码");
    // The list opens within the screen, its options whole, however long.
    await select.getByRole("combobox").click();
    const list = page.locator(".ant-select-dropdown").filter({ has: page.locator(`[id="${await select.getByRole("combobox").getAttribute("aria-controls")}"]`) });
    await expect(list).toBeVisible();
    await expect(list).not.toHaveClass(/\bant-slide-up-/);
    expect(await rightOf(list), "the package list's right edge").toBeLessThanOrEqual(390);
    await page.keyboard.press("Escape");
    await expect(list).toBeHidden();
    // The label, longer than the field, is cut short in it rather than widening the field and the page.
    await chooseOption(page, select, "100 QR codes");
    expect(await sidewaysOverflow(page), "the page scrolls sideways").toBeLessThanOrEqual(0);
    expect(await rightOf(select), "the chosen package field's right edge").toBeLessThanOrEqual(await cardRight());

    await card.getByTestId("buy-package-submit").click();
    // Chinese punctuation, the names set off by corner brackets rather than spaces.
    const dialog = await opened(page.getByRole("dialog", { name: "为「二维码」购买「100 QR codes」？" }));
    for (const [part, element] of [["dialog", dialog], ["close button", dialog.getByRole("button", { name: "Close" }).or(dialog.getByRole("button", { name: "关闭" }))], ["pay button", dialog.getByTestId("buy-package-pay")]] as const) {
      const box = (await element.boundingBox())!;
      expect(box.x, `the ${part}'s left edge`).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width, `the ${part}'s right edge`).toBeLessThanOrEqual(390);
    }
    await expect(dialog.getByTestId("buy-package-pay")).toHaveText("支付 ¥0.15");
    expect(await sidewaysOverflow(page), "the page scrolls sideways").toBeLessThanOrEqual(0);

    // Paid, the toast names the package as the dialog did, set off by corner brackets, not spaces.
    const [code] = (await createCodes(server.app.db, { amount: parseMoney("1"), count: 1, expiresAt: null, now: new Date() })).codes as [string];
    expect((await api.post("/api/v1/console/redeem", { data: { code }, headers: { authorization: `Bearer ${token}` } })).status()).toBe(200);
    await dialog.getByTestId("buy-package-pay").click();
    await expect(page.locator(".ant-message")).toContainText("已购买「100 QR codes」，可用 100 次调用");
    await api.dispose();
  });
});
