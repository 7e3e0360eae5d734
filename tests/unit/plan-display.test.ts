/**
 * Issue 37 §5: a tool's tiers (with a month's example), free quota and packages, as a reader sees
 * them on the landing page's card and the tool's docs page in English and Chinese, and the
 * example is what the gateway bills for that month. Needs a web build (`npm run build`; BUILD_DIR picks it).
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CATALOG_CARDS_ID, type CatalogCards } from "../../src/shared/catalog-card";
import type { PublicTool } from "../../src/shared/catalog";
import { COST_HEADER } from "../../src/shared/gateway";
import { formatMoney, parseMoney } from "../../src/shared/money";
import { planLines } from "../../src/shared/plan-lines";
import { DOCS_TEMPLATES_FILE } from "../../src/server/modules/site-pages/docs";
import { withoutBreakHints } from "../../src/server/testing/break-hints";
import { tempDataDir } from "../../src/server/testing/temp-dir";
import { createTestApp, type TestApp } from "../../src/server/testing/test-app";
import { createUserWithKey } from "../../src/server/testing/keys";

const clientDir = path.resolve(process.env.BUILD_DIR ?? "build", "client");
let t: TestApp;

const STAMP = {
  id: "stamp",
  name: "Stamp",
  description: "Stamps a document.",
  category: "documents",
  handler: { type: "builtin", name: "echo" },
  tiers: {
    mode: "graduated",
    bands: [
      { upTo: 10, price: "0.02" },
      { upTo: null, price: "0.015" },
    ],
  },
  freeQuota: { units: 5, period: "month" },
  packages: [{ id: "starter", name: "Starter", units: 1000, price: "9.90", validDays: 30, translations: { "zh-CN": { name: "入门包" } } }],
  translations: { "zh-CN": { name: "盖章", description: "为文件盖章。", category: "文档" } },
};

/** An OpenAI-compatible tool: an SDK points its base URL at the tool's address and calls paths below it. */
const LLM = {
  id: "llm",
  name: "LLM",
  description: "An OpenAI-compatible LLM, priced per model.",
  category: "AI",
  handler: { type: "http", url: "http://127.0.0.1:9/v1", protocol: "openai", models: { "gpt-4o-mini": { input: "0.15", output: "0.60" } }, defaultMaxOutputTokens: 16384 },
};

beforeAll(async () => {
  if (!fs.existsSync(path.join(clientDir, "..", DOCS_TEMPLATES_FILE))) throw new Error(`no web build beside ${clientDir}: run \`npm run build\` first`);
  const catalog = path.join(tempDataDir("plan-display-"), "tools.json");
  fs.writeFileSync(catalog, JSON.stringify({ tools: [STAMP, LLM] }));
  t = await createTestApp({ WEB_ROOT: clientDir, TOOLS_CATALOG: catalog });
});
afterAll(() => t?.close());

const text = (html: string) => html.replace(/<br>/g, "\n").replace(/<[^>]+>/g, "");

it("shows the tiers with a month's example, the free quota and the packages on the landing page's card, in both languages", async () => {
  const home = (await t.app.inject({ method: "GET", url: "/" })).body;
  const json = new RegExp(`<script type="application/json" id="${CATALOG_CARDS_ID}">([\\s\\S]*?)</script>`).exec(home)![1]!;
  const cards = JSON.parse(json) as CatalogCards;
  expect(cards.en[0]!.price.split("\n")).toEqual([
    "Priced by the month's use, each band at its price:",
    "1–10: ¥0.02 / call",
    "11 and on: ¥0.015 / call",
    "20 calls in a month: ¥0.35",
    "Free: 5 calls a month",
    "Package Starter: 1,000 calls for ¥9.90, usable 30 days",
  ]);
  expect(cards["zh-CN"][0]!.price.split("\n")).toEqual([
    "按当月用量阶梯计价，各档用量按各档价格：",
    "1–10：¥0.02/次",
    "11 起：¥0.015/次",
    "当月 20 次：¥0.35",
    "免费额度：每月 5 次",
    "次数包「入门包」：1,000 次 ¥9.90，购买后 30 天内有效",
  ]);
  // The English card is in the page's HTML too, for a reader without JavaScript.
  expect(text(home)).toContain("11 and on: ¥0.015 / call");
});

it("says a package usable for one day in the singular", () => {
  const oneDay = { price: "0.01", packages: [{ id: "day", name: "Day pass", units: 1, price: "0.50", validDays: 1, translations: {} }] } as Pick<PublicTool, "price" | "freeQuota" | "packages" | "tiers">;
  const flat = (amount: string) => `${amount} / call`;
  expect(planLines(oneDay, "en", "¥", null, flat)).toEqual(["¥0.01 / call", "Package Day pass: 1 call for ¥0.50, usable 1 day"]);
  expect(planLines(oneDay, "zh-CN", "¥", null, flat)[1]).toBe("次数包「Day pass」：1 次 ¥0.50，购买后 1 天内有效");
});

it("shows the same lines on the tool's docs page in English and Chinese", async () => {
  const en = text((await t.app.inject({ method: "GET", url: "/docs/tools/stamp.html" })).body);
  expect(en).toContain("1–10: ¥0.02 / call\n11 and on: ¥0.015 / call\n20 calls in a month: ¥0.35\nFree: 5 calls a month");
  const zh = text((await t.app.inject({ method: "GET", url: "/docs/zh-CN/tools/stamp.html" })).body);
  expect(zh).toContain("1–10：¥0.02/次\n11 起：¥0.015/次\n当月 20 次：¥0.35\n免费额度：每月 5 次");
});

it.each([
  ["/docs/tools/llm.html", "OpenAI SDK base URL"],
  ["/docs/zh-CN/tools/llm.html", "OpenAI SDK 的 base URL"],
])("gives on %s the address an OpenAI SDK's base URL takes, not a POST to it, which no route answers", async (url, row) => {
  const page = await t.app.inject({ method: "GET", url });
  expect(page.statusCode).toBe(200);
  expect(withoutBreakHints(page.body)).toMatch(new RegExp(`<th scope="row">${row}</th>\\s*<td><code>http://[^<]+/v1/tools/llm</code></td>`));
  expect(text(page.body)).not.toMatch(/POST http:\/\/\S+\/v1\/tools\/llm/);
  // A tool of its own paths keeps its method and address.
  expect(text((await t.app.inject({ method: "GET", url: url.replace("llm", "stamp") })).body)).toMatch(/POST http:\/\/\S+\/v1\/tools\/stamp/);
});

it.each([
  ["/docs/tools/llm.html", "as output tokens, or 16,384 output tokens when the request sets none; set max_tokens to hold less."],
  ["/docs/zh-CN/tools/llm.html", "按输出 tokens 计，请求未设置时按 16,384 个输出 tokens 计；设置 max_tokens 可以减少预扣。"],
])("says on %s how many output tokens a call that sets no max_tokens holds, as billing.md promises", async (url, sentence) => {
  expect(text((await t.app.inject({ method: "GET", url })).body)).toContain(sentence);
});

it("bills a month of the example's calls what the example says, after the free quota", async () => {
  const [tool] = (await t.app.inject({ method: "GET", url: "/api/v1/tools" })).json<{ tools: PublicTool[] }>().tools;
  expect(tool!.tiers).toEqual({ mode: "graduated", bands: [{ upTo: 10, price: "0.02" }, { upTo: null, price: "0.015" }], example: { units: 20, cost: "0.35" } });
  const { key: { secret } } = await createUserWithKey(t, { balance: "5" });
  let paid = 0n;
  for (let i = 0; i < 5 + tool!.tiers!.example.units; i++) {
    const res = await t.app.inject({ method: "POST", url: "/v1/tools/stamp", payload: "{}", headers: { "content-type": "application/json", authorization: `Bearer ${secret}` } });
    expect(res.statusCode).toBe(200);
    paid += parseMoney(res.headers[COST_HEADER] as string);
  }
  expect(formatMoney(paid)).toBe(tool!.tiers!.example.cost);
});
