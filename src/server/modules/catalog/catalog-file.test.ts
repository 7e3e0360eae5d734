import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { formatMoney } from "#shared/money";
import { tieredCost } from "#shared/tiers";
import { CatalogError, loadCatalog } from "./catalog-file";

function writeCatalog(content: unknown): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "catalog-")), "tools.json");
  fs.writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  return file;
}

const tool = (overrides: object = {}) => ({
  id: "echo",
  name: "Echo",
  description: "d",
  category: "utility",
  price: "0.01",
  handler: { type: "builtin", name: "echo" },
  ...overrides,
});

const starter = { id: "starter", name: "Starter", units: 1000, price: "9.90", validDays: 30 };

describe("loadCatalog", () => {
  it("reads the shipped catalog", () => {
    const tools = loadCatalog(path.resolve("config/tools.json"));
    expect(tools.map((t) => t.id)).toEqual(["echo", "qrcode", "pinyin"]);
    expect(tools[0]!.priceMicros).toBe(100n);
    expect(tools[2]).toMatchObject({ unit: "character", requiresApproval: true });
  });

  it("carries the operator's Chinese words beside the English, each optional", () => {
    const [pinyin] = loadCatalog(path.resolve("config/tools.json")).slice(2);
    expect(pinyin!.translations["zh-CN"]).toMatchObject({ name: "拼音", unit: "汉字" });
    const [plain] = loadCatalog(writeCatalog({ tools: [tool()] }));
    expect(plain!.translations).toEqual({});
  });

  it("reads a free quota and packages", () => {
    const [echo] = loadCatalog(writeCatalog({ tools: [tool({ freeQuota: { units: 100, period: "month" }, packages: [starter] })] }), {});
    expect(echo).toMatchObject({ freeQuota: { units: 100, period: "month" }, packages: [starter] });
    const [flat] = loadCatalog(writeCatalog({ tools: [tool()] }), {});
    expect([flat!.freeQuota, flat!.packages]).toEqual([undefined, []]);
  });

  it("reads tiers instead of a price: the first band's price is shown, the dearest is held", () => {
    const bands = [
      { upTo: 10_000, price: "0.002" },
      { upTo: 100_000, price: "0.0015" },
      { upTo: null, price: "0.001" },
    ];
    const [echo] = loadCatalog(writeCatalog({ tools: [tool({ price: undefined, tiers: { mode: "graduated", bands } })] }), {});
    expect(echo).toMatchObject({ price: "0.002", priceMicros: 2000n });
    expect(echo!.tiers).toEqual({ mode: "graduated", bands: [{ upTo: 10_000, price: 2000n }, { upTo: 100_000, price: 1500n }, { upTo: null, price: 1000n }] });
  });

  it("applies defaults and parses prices exactly", () => {
    const [echo] = loadCatalog(writeCatalog({ tools: [tool({ price: "0.000001" })] }));
    expect(echo).toMatchObject({ requiresApproval: false, rateLimitPerMinute: 600, priceMicros: 1n });
  });

  it("fills upstream header secrets from the environment", () => {
    const file = writeCatalog({
      tools: [tool({ id: "weather", handler: { type: "http", url: "http://127.0.0.1:9/w", headers: { "x-api-key": "Key ${WEATHER_KEY}" } } })],
    });
    const [weather] = loadCatalog(file, { WEATHER_KEY: "s3cret" });
    expect(weather!.handler).toMatchObject({ type: "http", method: "ANY", timeoutMs: 10_000, headers: { "x-api-key": "Key s3cret" } });
  });

  it("reads an OpenAI-compatible tool priced per model, with its defaults", () => {
    const file = writeCatalog({
      tools: [
        tool({
          id: "llm",
          price: undefined,
          handler: { type: "http", url: "http://127.0.0.1:9/v1", protocol: "openai", models: { "gpt-4o-mini": { input: "0.15", output: "0.60", cachedInput: "0.075" }, "deepseek-chat": { input: "2", output: "8" } } },
        }),
      ],
    });
    const [llm] = loadCatalog(file, {});
    expect(llm).toMatchObject({ priceMicros: 0n, handler: { protocol: "openai" } });
    expect(llm!.handler).toMatchObject({ models: { "deepseek-chat": { input: "2", output: "8", tokenizer: "o200k_base" } } });
  });

  const openAiTool = (handler: object = {}, overrides: object = {}) =>
    tool({ id: "llm", price: undefined, handler: { type: "http", url: "http://x.test/v1", protocol: "openai", models: { m: { input: "1", output: "2" } }, ...handler }, ...overrides });

  it.each([
    ["an OpenAI-compatible tool with a price", openAiTool({}, { price: "0.01" }), /tools\.0\.price: an OpenAI-compatible tool is priced per model in handler\.models: remove price/],
    ["an OpenAI-compatible tool without models", openAiTool({ models: {} }), /tools\.0\.handler\.models: list at least one model/],
    ["an OpenAI-compatible tool priced per unit", openAiTool({}, { unit: "token" }), /tools\.0\.unit: an OpenAI-compatible tool is priced per token/],
    ["an OpenAI-compatible tool reading unitsPath", openAiTool({ unitsPath: "usage.total_tokens" }), /tools\.0\.handler\.unitsPath/],
    ["a model price that is a float", openAiTool({ models: { m: { input: "1e-3", output: "2" } } }), /tools\.0\.handler\.models\.m\.input: must be a non-negative decimal per 1M tokens/],
    ["a model price with more than six decimals", openAiTool({ models: { m: { input: "1", output: "0.0000001" } } }), /tools\.0\.handler\.models\.m\.output/],
    ["a model without an output price", openAiTool({ models: { m: { input: "1" } } }), /tools\.0\.handler\.models\.m\.output: is required \(a string\)/],
    ["a model with a misspelt price", openAiTool({ models: { m: { input: "1", output: "2", cached: "1" } } }), /tools\.0\.handler\.models\.m: Unrecognized key/],
    ["an unknown tokenizer", openAiTool({ models: { m: { input: "1", output: "2", tokenizer: "bytes" } } }), /tools\.0\.handler\.models\.m\.tokenizer/],
    ["models on a tool that is not OpenAI-compatible", tool({ id: "up", handler: { type: "http", url: "http://x.test/", models: { m: { input: "1", output: "2" } } } }), /tools\.0\.handler\.models: are priced only on a tool with "protocol": "openai"/],
    ["a tool without a price", tool({ price: undefined }), /tools\.0\.price: is required/],
    ["a priced path that is an OpenAI route", openAiTool({ pricedPaths: { "/chat/completions": "0.01" } }), /tools\.0\.handler\.pricedPaths\.\/chat\/completions: is an OpenAI route/],
    ["a priced path that is free", openAiTool({ pricedPaths: { "/audio/speech": "0" } }), /tools\.0\.handler\.pricedPaths\.\/audio\/speech: must be a decimal above zero/],
    ["a free quota on an OpenAI-compatible tool", openAiTool({}, { freeQuota: { units: 10, period: "day" } }), /tools\.0\.freeQuota: an OpenAI-compatible tool is priced per token/],
    ["packages on an OpenAI-compatible tool", openAiTool({}, { packages: [starter] }), /tools\.0\.packages: an OpenAI-compatible tool is priced per token/],
    ["tiers on an OpenAI-compatible tool", openAiTool({}, { tiers: { mode: "volume", bands: [{ upTo: null, price: "0.01" }] } }), /tools\.0\.tiers: an OpenAI-compatible tool is priced per token/],
    ["priced paths on a tool that is not OpenAI-compatible", tool({ id: "up", handler: { type: "http", url: "http://x.test/", pricedPaths: { "/a": "1" } } }), /tools\.0\.handler\.pricedPaths: are priced only/],
  ])("refuses %s, saying which field and why", (_label, entry, message) => {
    expect(() => loadCatalog(writeCatalog({ tools: [entry] }), {})).toThrow(message);
  });

  it.each(["docs/site/operators.md", "docs/site/zh-CN/operators.md"])("loads the example catalog entries the operators' page shows (%s)", (page) => {
    const entries = [...fs.readFileSync(path.resolve(page), "utf8").matchAll(/```json\n(\{\n {2}"id"[\s\S]*?\n\})\n```/g)].map((match) => JSON.parse(match[1]!) as { id: string });
    expect(entries.map((entry) => entry.id)).toEqual(["chat", "llm", "pinyin", "ocr", "geocode"]);
    const tools = loadCatalog(writeCatalog({ tools: entries }), { LLM_KEY: "sk-test" });
    expect(tools[1]!.handler).toMatchObject({ protocol: "openai", models: { "gpt-4o-mini": { input: "1.10", cachedInput: "0.55", output: "4.40" } } });
    expect(tools[2]!.translations["zh-CN"]).toMatchObject({ name: "拼音", unit: "汉字" });
    expect(tools[3]).toMatchObject({ freeQuota: { units: 100, period: "month" }, packages: [{ id: "starter", translations: { "zh-CN": { name: "入门包" } } }, { id: "pro" }] });
    expect(tools[4]!.tiers?.bands.map((band) => band.upTo)).toEqual([10_000, 100_000, null]);
  });

  it.each([
    ["docs/site/pricing.md", "docs/site/operators.md"],
    ["docs/site/zh-CN/pricing.md", "docs/site/zh-CN/operators.md"],
  ])("bills the pricing page's tier examples (%s) as it says, with the operators' page's geocode bands", (pricing, operators) => {
    const geocode = [...fs.readFileSync(path.resolve(operators), "utf8").matchAll(/```json\n(\{\n {2}"id": "geocode"[\s\S]*?\n\})\n```/g)].map((m) => JSON.parse(m[1]!) as object);
    const [graduated] = loadCatalog(writeCatalog({ tools: geocode }), {});
    const volume = { ...graduated!.tiers!, mode: "volume" as const };
    const page = fs.readFileSync(path.resolve(pricing), "utf8");
    const figures: [bigint, string][] = [
      [tieredCost(graduated!.tiers!, 0, 20_000), "= ¥35.00"],
      [tieredCost(graduated!.tiers!, 9_800, 500), "¥0.85"],
      [tieredCost(volume, 9_800, 500), "= ¥0.75"],
    ];
    for (const [cost, words] of figures) {
      expect(page).toContain(words);
      expect(`¥${formatMoney(cost)}`).toBe(/¥[\d.]+/.exec(words)![0]);
    }
  });

  it.each([
    ["not JSON", "{", /Unexpected|JSON/],
    ["no tools", { tools: [] }, /tools: /],
    ["a bad id", { tools: [tool({ id: "Bad Id" })] }, /tools\.0\.id: must be lower-case/],
    ["a float price", { tools: [tool({ price: "1e-3" })] }, /tools\.0\.price: must be a non-negative decimal/],
    ["a negative price", { tools: [tool({ price: "-1" })] }, /tools\.0\.price/],
    ["an unknown builtin", { tools: [tool({ handler: { type: "builtin", name: "nope" } })] }, /tools\.0\.handler\.name/],
    ["a duplicate id", { tools: [tool(), tool()] }, /duplicate tool id "echo"/],
    ["a language the site does not have", { tools: [tool({ translations: { fr: { name: "Écho" } } })] }, /tools\.0\.translations: Unrecognized key: "fr"/],
    ["an empty translated name", { tools: [tool({ translations: { "zh-CN": { name: "" } } })] }, /tools\.0\.translations\.zh-CN\.name/],
    ["a misspelt translated field", { tools: [tool({ translations: { "zh-CN": { title: "回显" } } })] }, /tools\.0\.translations\.zh-CN: Unrecognized key: "title"/],
    ["a unit translated on a per-call tool", { tools: [tool({ translations: { "zh-CN": { unit: "次" } } })] }, /tools\.0\.translations\.zh-CN\.unit: a tool priced per call has no unit/],
    ["a free quota per week", { tools: [tool({ freeQuota: { units: 10, period: "week" } })] }, /tools\.0\.freeQuota\.period/],
    ["a free quota of no units", { tools: [tool({ freeQuota: { units: 0, period: "day" } })] }, /tools\.0\.freeQuota\.units/],
    ["a package price finer than the money type", { tools: [tool({ packages: [{ ...starter, price: "0.0000001" }] })] }, /tools\.0\.packages\.0\.price: must be a decimal above zero/],
    ["a free package", { tools: [tool({ packages: [{ ...starter, price: "0" }] })] }, /tools\.0\.packages\.0\.price/],
    ["a package without days", { tools: [tool({ packages: [{ ...starter, validDays: undefined }] })] }, /tools\.0\.packages\.0\.validDays: is required \(a number\)/],
    ["a package without units", { tools: [tool({ packages: [{ ...starter, units: undefined }] })] }, /tools\.0\.packages\.0\.units: is required \(a number\) \(tool "echo"\)$/m],
    ["a misspelt package field", { tools: [tool({ packages: [{ ...starter, expiresDays: 3 }] })] }, /tools\.0\.packages\.0: Unrecognized key: "expiresDays"/],
    // Ignored, each would leave its default: a tool open to all, a call charged its whole hold, a call that never waits for its hold.
    ["a misspelt tool field", { tools: [tool({ requireApproval: true })] }, /tools\.0: Unrecognized key: "requireApproval"/],
    ["a misspelt HTTP handler field", { tools: [tool({ unit: "token", handler: { type: "http", url: "https://x.example/", unitPath: "usage.total_tokens" } })] }, /tools\.0\.handler: Unrecognized key: "unitPath"/],
    ["an HTTP field on a built-in handler", { tools: [tool({ handler: { type: "builtin", name: "echo", startEarly: false } })] }, /tools\.0\.handler: Unrecognized key: "startEarly"/],
    ["a key beside tools", { tools: [tool()], tool: [] }, / {2}- the file: Unrecognized key: "tool"/],
    ["a price beside tiers", { tools: [tool({ tiers: { mode: "volume", bands: [{ upTo: null, price: "0.01" }] } })] }, /tools\.0\.price: a tool is priced by its tiers or by one price/],
    ["neither a price nor tiers", { tools: [tool({ price: undefined })] }, /tools\.0\.price: is required \(a decimal such as 0\.01\), or tiers/],
    ["a tier price finer than the money type", { tools: [tool({ price: undefined, tiers: { mode: "graduated", bands: [{ upTo: null, price: "0.0000001" }] } })] }, /tools\.0\.tiers\.bands\.0\.price: must be a non-negative decimal with at most 6 decimals/],
    ["a last band with an end", { tools: [tool({ price: undefined, tiers: { mode: "graduated", bands: [{ upTo: 10, price: "0.01" }] } })] }, /tools\.0\.tiers\.bands\.0\.upTo: the last band has no end/],
    [
      "a band without end before the last",
      { tools: [tool({ price: undefined, tiers: { mode: "graduated", bands: [{ upTo: null, price: "0.01" }, { upTo: null, price: "0.02" }] } })] },
      /tools\.0\.tiers\.bands\.0\.upTo: only the last band is without end/,
    ],
    [
      "bands that do not rise",
      { tools: [tool({ price: undefined, tiers: { mode: "volume", bands: [{ upTo: 10, price: "0.01" }, { upTo: 10, price: "0.02" }, { upTo: null, price: "0.02" }] } })] },
      /tools\.0\.tiers\.bands\.1\.upTo: must be above the band before's upTo \(10\)/,
    ],
    ["a tier mode of its own", { tools: [tool({ price: undefined, tiers: { mode: "stairs", bands: [{ upTo: null, price: "0.01" }] } })] }, /tools\.0\.tiers\.mode/],
    ["two packages of one id", { tools: [tool({ packages: [starter, starter] })] }, /tools\.0\.packages\.1\.id: duplicate package id "starter"/],
    [
      "a missing secret",
      { tools: [tool({ handler: { type: "http", url: "http://x.test/", headers: { a: "${NOPE}" } } })] },
      /environment variable NOPE is not set/,
    ],
  ])("refuses a catalog with %s, saying where", (_label, content, message) => {
    expect(() => loadCatalog(writeCatalog(content), {})).toThrow(CatalogError);
    expect(() => loadCatalog(writeCatalog(content), {})).toThrow(message);
  });

  it("names the tool of each problem by its id, not only by its place in the list", () => {
    const content = { tools: [tool({ id: "first" }), tool({ id: "ocr", price: "x" }), tool({ id: "weather", handler: { type: "http", url: "http://x.test/", headers: { a: "${NOPE}" } } })] };
    expect(() => loadCatalog(writeCatalog(content), {})).toThrow(/^Invalid tool catalog \S+:\n {2}- tools\.1\.price: must be a non-negative decimal such as 0\.01 \(tool "ocr"\)$/);
    const secret = { tools: [tool({ id: "first" }), tool({ id: "weather", handler: { type: "http", url: "http://x.test/", headers: { a: "${NOPE}" } } })] };
    expect(() => loadCatalog(writeCatalog(secret), {})).toThrow(/ {2}- tools\.1\.handler\.headers\.a: environment variable NOPE is not set \(tool "weather"\)$/);
    // An entry without an id of its own is named by its place alone.
    expect(() => loadCatalog(writeCatalog({ tools: [tool({ id: undefined })] }), {})).toThrow(/ {2}- tools\.0\.id: is required \(a string\)$/);
  });
});
