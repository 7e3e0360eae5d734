/**
 * The console's Try it (issue 40) as a user meets it: from a key on the API keys page or a tool's
 * link, a call through the gateway with the price and what would pay before (free quota, package,
 * balance, or nothing for a key that stops) and the receipt after (charged, balance updated), an
 * image tool's image, a tool needing approval (the way to apply), a streamed answer arriving in
 * parts from a local fake upstream, a drawer closed mid-stream (settled as a caller who left), a
 * disabled key's refusal; no WCAG A/AA violation on the panel (axe, as accessibility.spec.ts runs
 * it), and Lighthouse's accessibility score of 100 over the page with the panel open after a try
 * (its node API, in snapshot mode, on Playwright's Chromium through a debugging port).
 * A server of its own: its catalog adds a streaming HTTP tool and a tool with plans.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { chromium, expect, request as playwrightRequest, test, type APIRequestContext, type Page } from "@playwright/test";
import { snapshot } from "lighthouse";
import puppeteer from "puppeteer-core";
import { CHROMIUM_ARGS, CHROMIUM_EXECUTABLE } from "../../playwright.config";
import { eq } from "drizzle-orm";
import { usageRecords } from "../../src/server/db/schema/gateway";
import { createCodes } from "../../src/server/modules/redemption/service";
import { freePort } from "../../src/server/testing/free-port";
import { beijingDate } from "../../src/shared/beijing-time";
import { parseMoney } from "../../src/shared/money";
import { loginViaApi, signInPage } from "./support/auth";
import { axeViolations } from "./support/axe";
import { startOwnServer, type OwnServer } from "./support/own-server";
import { chooseOption } from "./support/selects";

/** Streams two parts, the second once the test has seen the page show the first alone (`sendSecondPart`). */
let sendSecondPart: () => void = () => undefined;
function startUpstream(): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8", "set-cookie": "tg_session=stolen; Path=/" });
      res.write("part one\n");
      sendSecondPart = () => res.end("part two\n");
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

let upstream: http.Server;
let server: OwnServer;
const PUBLIC_URL = "https://api.tollgate.example";
let codes: string[];

test.beforeAll(async () => {
  test.setTimeout(120_000);
  upstream = await startUpstream();
  const defaults = JSON.parse(fs.readFileSync("config/tools.json", "utf8")) as { tools: unknown[] };
  server = await startOwnServer("try-it", (folder) => {
    const catalog = path.join(folder, "tools.json");
    const ticker = {
      id: "ticker",
      name: "Ticker",
      description: "Streams text in parts.",
      category: "text",
      price: "0.01",
      handler: { type: "http", url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/`, method: "POST" },
      example: { body: { n: 2 } },
    };
    // Echo again, with a free quota of two calls a month and a package to buy.
    const notes = {
      id: "notes",
      name: "Notes",
      description: "Echo with plans.",
      category: "utility",
      price: "0.001",
      handler: { type: "builtin", name: "echo" },
      example: { body: { note: 1 } },
      freeQuota: { units: 2, period: "month" },
      packages: [{ id: "starter", name: "Starter", units: 5, price: "1.00", validDays: 30, translations: { "zh-CN": { name: "入门包" } } }],
      translations: { "zh-CN": { name: "便笺" } },
    };
    // Echo priced by tiers: the month's first call at ¥0.02, the next at ¥0.01.
    const stamps = {
      id: "stamps",
      name: "Stamps",
      description: "Echo priced by tiers.",
      category: "utility",
      handler: { type: "builtin", name: "echo" },
      example: { body: { stamp: 1 } },
      tiers: { mode: "graduated", bands: [{ upTo: 1, price: "0.02" }, { upTo: null, price: "0.01" }] },
    };
    fs.writeFileSync(catalog, JSON.stringify({ tools: [...defaults.tools, ticker, notes, stamps] }));
    // The address the docs' examples call, which the snippets use too, whatever address the page was opened at.
    return { TOOLS_CATALOG: catalog, PUBLIC_URL };
  });
  codes = (await createCodes(server.app.db, { amount: parseMoney("10"), count: 12, expiresAt: null, now: new Date() })).codes;
});

test.afterAll(async () => {
  await server?.close();
  upstream?.close();
});

/** A signed-in user with ¥10 and one key; the page signed in as them. */
async function userWithKey(page: Page): Promise<{ api: APIRequestContext; auth: { authorization: string }; keyId: number }> {
  const api = await playwrightRequest.newContext({ baseURL: server.base });
  const { token } = await loginViaApi(api, undefined, "", server);
  const auth = { authorization: `Bearer ${token}` };
  expect((await api.post("/api/v1/console/redeem", { data: { code: codes.pop() }, headers: auth })).status()).toBe(200);
  const key = await api.post("/api/v1/console/keys", { data: { name: "try key" }, headers: auth });
  expect(key.status()).toBe(201);
  await signInPage(page, token, server);
  return { api, auth, keyId: ((await key.json()) as { key: { id: number } }).key.id };
}

/** Opens Try it at `search` and waits for its panel: its code loads when it is first opened, on a loaded machine in seconds. */
async function openTry(page: Page, search: string): Promise<void> {
  await page.goto(`${server.base}/console/api-keys${search}`);
  await expect(page.getByTestId("try-request")).toBeVisible({ timeout: 30_000 });
}

test.describe("with the page's CSP bypassed for axe", () => {
  test.use({ bypassCSP: true });

  test("echo from a key's Try it: the price before, then the answer, the charge and the balance after; code to copy; no WCAG violation", async ({ page }) => {
    const { keyId } = await userWithKey(page);
    await page.goto(`${server.base}/console/api-keys`);
    await page.getByTestId("key-row").getByTestId("try-key-link").click();
    await expect(page.getByTestId("try-request")).toBeVisible({ timeout: 30_000 });
    await expect(page).toHaveURL(new RegExp(`/console/api-keys\\?try&key=${keyId}$`));
    await expect(page.getByRole("menuitem", { name: "Try it" })).toHaveClass(/ant-menu-item-selected/);
    await expect(page.getByTestId("try-price")).toContainText("¥0.0001 / call");
    await expect(page.getByTestId("try-payer")).toHaveText("your balance (¥10.00) at ¥0.0001 a call");
    await expect(page.getByTestId("try-body")).toHaveValue(JSON.stringify({ hello: "world" }, null, 2));
    await page.getByTestId("try-body").fill('{"hello": "<b>try</b>"}');
    await expect(page.getByTestId("try-body-size")).toHaveText("23 bytes of at most 64 KB");
    await page.getByTestId("try-send").click();

    const result = page.getByTestId("try-result");
    await expect(result.getByTestId("try-status")).toHaveText("200");
    await expect(result.getByTestId("try-charged")).toHaveText("¥0.0001");
    await expect(result.getByTestId("try-balance")).toHaveText("¥9.9999");
    // Pretty-printed, and the markup is text, not elements.
    await expect(result.getByTestId("try-answer")).toHaveText(JSON.stringify({ hello: "<b>try</b>" }, null, 2));
    await expect(result.locator("b")).toHaveCount(0);
    await expect(result.getByTestId("try-request-id")).toHaveText(/^[0-9a-f-]{36}$/);
    await expect(page.getByTestId("header-balance-exact")).toContainText("¥9.9999");
    await expect(page.getByTestId("try-payer")).toHaveText("your balance (¥9.9999) at ¥0.0001 a call");

    const code = page.getByTestId("try-code");
    await expect(code.getByTestId("try-snippet-curl")).toContainText(`-H "Authorization: Bearer $API_KEY"`);
    await expect(code.getByTestId("try-snippet-curl")).toContainText(`${PUBLIC_URL}/v1/tools/echo`);
    for (const tab of ["Python (requests)", "JavaScript (fetch)", "Go", "Java", "PHP"]) await expect(code.getByRole("tab", { name: tab, exact: true })).toBeVisible();
    await expect(page.getByTestId("try-history-item")).toHaveCount(1);
    // The call as the gateway was asked it, not a bare "POST /".
    await expect(page.getByTestId("try-history-call")).toHaveText("POST /v1/tools/echo");

    await page.waitForLoadState("networkidle");
    // The panel: the page under the drawer is accessibility.spec.ts's.
    expect(await axeViolations(page, '[role="dialog"]')).toEqual([]);
  });
});

test("what would pay, before each try: the free quota while it lasts, then the balance, nothing for a key that stops, then a package bought", async ({ page }) => {
  const { api, auth, keyId } = await userWithKey(page);
  await openTry(page, `?try=notes&key=${keyId}`);
  const payer = page.getByTestId("try-payer");
  await expect(payer).toHaveText("free quota (2 of 2 calls left this month)");
  await page.getByTestId("try-send").click();
  await expect(page.getByTestId("try-charged")).toHaveText("¥0.00");
  await expect(payer).toHaveText("free quota (1 of 2 calls left this month)");
  await page.getByTestId("try-send").click();
  await expect(page.getByTestId("try-history-item")).toHaveCount(2);
  await expect(payer).toHaveText("your balance (¥10.00) at ¥0.001 a call");

  // A key set to stop when the prepaid units run out: nothing would pay, and the call is refused.
  expect((await api.patch(`/api/v1/console/keys/${keyId}`, { data: { whenPrepaidRunsOut: "stop" }, headers: auth })).status()).toBe(200);
  await openTry(page, `?try=notes&key=${keyId}`);
  await expect(payer).toHaveText("nothing: this key stops when the free quota and packages run out, so a call is refused (prepaid_exhausted)");
  await page.getByTestId("try-send").click();
  await expect(page.getByTestId("try-refusal")).toContainText("prepaid_exhausted");
  await expect(page.getByTestId("try-balance")).toHaveText("¥10.00");

  const bought = await api.post("/api/v1/console/packages/purchase", { data: { toolId: "notes", packageId: "starter" }, headers: { ...auth, "idempotency-key": "try-it-starter" } });
  expect(bought.status()).toBe(201);
  const { lot } = (await bought.json()) as { lot: { expiresAt: string } };
  await openTry(page, `?try=notes&key=${keyId}`);
  await expect(payer).toHaveText(`package Starter (5 calls left, expires ${beijingDate(lot.expiresAt)})`);
  await page.getByTestId("try-send").click();
  await expect(page.getByTestId("try-charged")).toHaveText("¥0.00");
  await expect(payer).toHaveText(`package Starter (4 calls left, expires ${beijingDate(lot.expiresAt)})`);
});

test("a tool priced by tiers: its first band's price and the month's tier price before, each try charged its band", async ({ page }) => {
  const { keyId } = await userWithKey(page);
  await openTry(page, `?try=stamps&key=${keyId}`);
  await expect(page.getByTestId("try-price")).toContainText("from ¥0.02 / call, less as the month's use grows (tiers)");
  const payer = page.getByTestId("try-payer");
  await expect(payer).toHaveText("your balance (¥10.00) at this month's tier price");
  await page.getByTestId("try-send").click();
  await expect(page.getByTestId("try-charged")).toHaveText("¥0.02");
  await page.getByTestId("try-send").click();
  await expect(page.getByTestId("try-history-item")).toHaveCount(2);
  await expect(page.getByTestId("try-charged")).toHaveText("¥0.01");
  await expect(page.getByTestId("try-balance")).toHaveText("¥9.97");
});

test("Lighthouse scores the panel's accessibility 100, over a try's answer and code, with the page's own CSP", async () => {
  test.setTimeout(120_000);
  // A browser Lighthouse can reach: Playwright's Chromium with a debugging port, the one context every tab shares.
  const port = await freePort();
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "try-it-lighthouse-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_EXECUTABLE,
    args: [...CHROMIUM_ARGS, `--remote-debugging-port=${port}`],
    // Tall enough for the whole drawer: axe, under Lighthouse, leaves the contrast of text scrolled out of view unjudged.
    viewport: { width: 1350, height: 2400 },
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    const { keyId } = await userWithKey(page);
    await openTry(page, `?try=echo&key=${keyId}`);
    await page.getByTestId("try-send").click();
    await expect(page.getByTestId("try-code")).toBeVisible();
    await page.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished.catch(() => {}))));

    const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${port}`, defaultViewport: null });
    try {
      const tab = (await browser.pages()).find((candidate) => candidate.url().includes("try=echo"))!;
      const result = await snapshot(tab, { flags: { onlyCategories: ["accessibility"], formFactor: "desktop", screenEmulation: { disabled: true }, logLevel: "error" } });
      const lhr = result!.lhr;
      const failing = lhr.categories.accessibility!.auditRefs
        .filter((ref) => ref.weight > 0 && lhr.audits[ref.id]!.score !== null && lhr.audits[ref.id]!.score! < 1)
        .map((ref) => `${ref.id}: ${JSON.stringify(lhr.audits[ref.id]!.details ?? {}).slice(0, 600)}`);
      expect(failing).toEqual([]);
      expect(lhr.categories.accessibility!.score).toBe(1);
    } finally {
      await browser.disconnect();
    }
  } finally {
    await context.close();
  }
});

test("qrcode: the image is shown as an image", async ({ page }) => {
  await userWithKey(page);
  await openTry(page, `?try=qrcode`);
  await expect(page.getByTestId("try-price")).toContainText("¥0.002 / call");
  await page.getByTestId("try-send").click();
  const image = page.getByTestId("try-result").getByTestId("try-answer-image");
  await expect(image).toBeVisible();
  expect(await image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(512);
  await expect(page.getByTestId("try-charged")).toHaveText("¥0.002");
});

test("at a laptop's width the receipt's amounts each read on one line, never broken inside the number", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await userWithKey(page);
  await openTry(page, `?try=echo`);
  await page.getByTestId("try-send").click();
  await expect(page.getByTestId("try-charged")).toHaveText("¥0.0001");
  await expect(page.getByTestId("try-balance")).toHaveText("¥9.9999");
  // An inline amount broken over two lines has one box per line: "¥0.0" above "001" reads as nothing charged.
  for (const id of ["try-charged", "try-balance"]) expect(await page.getByTestId(id).evaluate((el) => el.getClientRects().length), id).toBe(1);
});

test("pinyin without approval: the refusal, and the way to apply", async ({ page }) => {
  await userWithKey(page);
  await openTry(page, `?try=pinyin`);
  await expect(page.getByText("This tool needs approval before your keys may call it")).toBeVisible();
  await page.getByTestId("try-send").click();
  await expect(page.getByTestId("try-status")).toHaveText("403");
  const refusal = page.getByTestId("try-refusal");
  await expect(page.getByTestId("try-refusal-title")).toHaveText("Tool not approved (tool_not_approved)");
  await expect(page.getByTestId("try-charged")).toHaveText("¥0.00");
  await refusal.getByRole("link", { name: "Apply for access" }).click();
  await expect(page).toHaveURL(/\/console\/apply\?tool=pinyin$/);
});

test("a streamed answer appears as it streams, and the tool's cookie never reaches the page", async ({ page, context }) => {
  await userWithKey(page);
  await openTry(page, `?try=ticker`);
  await page.getByTestId("try-send").click();
  const result = page.getByTestId("try-result");
  await expect(result.getByTestId("try-answer")).toHaveText("part one\n");
  await expect(result).toHaveAttribute("aria-busy", "true");
  await expect(result.getByTestId("try-charged")).toHaveText("…");
  sendSecondPart();
  await expect(result.getByTestId("try-answer")).toHaveText("part one\npart two\n");
  await expect(result).toHaveAttribute("aria-busy", "false");
  await expect(result.getByTestId("try-charged")).toHaveText("¥0.01");
  expect((await context.cookies()).map((cookie) => cookie.name)).not.toContain("tg_session");
});

/** Resolves once the server sees the page hang up on a try: the try's answer closed before it ended. */
function tryHungUp(): Promise<void> {
  return new Promise((resolve) => {
    const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => {
      if (req.method !== "POST" || req.url !== "/api/v1/console/tries") return;
      res.once("close", () => {
        if (res.writableFinished) return;
        server.app.server.off("request", onRequest);
        resolve();
      });
    };
    server.app.server.on("request", onRequest);
  });
}

test("a user who closes the drawer mid-stream: the call is settled as one whose caller left, charged as the gateway charges it, in the call log, nothing held", async ({ page }) => {
  const { api, auth } = await userWithKey(page);
  await openTry(page, `?try=ticker`);
  const hungUp = tryHungUp();
  await page.getByTestId("try-send").click();
  const result = page.getByTestId("try-result");
  await expect(result.getByTestId("try-answer")).toHaveText("part one\n");
  const requestId = (await result.getByTestId("try-request-id").textContent())!;
  await page.getByTestId("try-drawer").getByRole("button", { name: "Close" }).click();
  await expect(page.getByTestId("try-drawer")).toBeHidden();
  await hungUp;
  // The tool goes on to its end, unread by anyone: a call priced per call whose tool answered in full is charged.
  sendSecondPart();
  await expect.poll(async () => (await api.get(`/api/v1/console/calls/${requestId}`, { headers: auth })).status(), { timeout: 15_000 }).toBe(200);

  await page.goto(`${server.base}/console/billing-details?tab=calls&request=${requestId}`);
  const detail = page.getByTestId("call-detail");
  await expect(detail.getByTestId("call-outcome")).toHaveText("Caller left");
  await expect(detail.getByTestId("call-from-console")).toHaveText("yes");
  await expect(detail.getByRole("row", { name: /^Charged/ })).toContainText("¥0.01");
  await expect(detail.getByRole("row", { name: /^Refunded/ })).toContainText("¥0.00");
  await expect(page.getByTestId("header-balance")).toHaveText("¥9.99");
  // Nothing left pending: the charge is settled in the ledger, as for any call.
  const [usage] = await server.app.db.select({ status: usageRecords.status, amount: usageRecords.amount }).from(usageRecords).where(eq(usageRecords.requestId, requestId));
  expect(usage).toEqual({ status: "succeeded", amount: 10_000n });
});

test("a disabled key: the warning before, the refusal after, nothing charged", async ({ page }) => {
  const { api, auth, keyId } = await userWithKey(page);
  expect((await api.patch(`/api/v1/console/keys/${keyId}`, { data: { enabled: false }, headers: auth })).status()).toBe(200);
  await openTry(page, `?try=echo&key=${keyId}`);
  await expect(page.getByText("This key is disabled or expired")).toBeVisible();
  await page.getByTestId("try-send").click();
  await expect(page.getByTestId("try-status")).toHaveText("401");
  await expect(page.getByTestId("try-refusal")).toContainText("invalid_key");
  await expect(page.getByTestId("try-balance")).toHaveText("¥10.00");
});

test.describe("in Chinese", () => {
  test.use({ locale: "zh-CN" });

  test("the page and its navigation are in Chinese", async ({ page }) => {
    await userWithKey(page);
    await page.goto(`${server.base}/console/api-keys`);
    await page.getByRole("menuitem", { name: "在线试用" }).click();
    await expect(page.getByTestId("try-drawer").getByText("在线试用", { exact: true })).toBeVisible();
    await expect(page.getByTestId("try-price")).toContainText("账户余额");
    await expect(page.getByTestId("try-send")).toHaveText("发送");
    await chooseOption(page, page.getByTestId("try-tool"), "便笺");
    await expect(page.getByTestId("try-payer")).toHaveText("免费额度（本月剩余 2 / 2 次调用）");
  });

  test("a refusal is named in Chinese, as the call log names it, beside its stable code", async ({ page }) => {
    await userWithKey(page);
    await openTry(page, `?try=pinyin`);
    await page.getByTestId("try-send").click();
    await expect(page.getByTestId("try-status")).toHaveText("403");
    await expect(page.getByTestId("try-refusal-title")).toHaveText("工具未获批准（tool_not_approved）");
  });
});
