import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
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
    [
      "a missing secret",
      { tools: [tool({ handler: { type: "http", url: "http://x.test/", headers: { a: "${NOPE}" } } })] },
      /environment variable NOPE is not set/,
    ],
  ])("refuses a catalog with %s, saying where", (_label, content, message) => {
    expect(() => loadCatalog(writeCatalog(content), {})).toThrow(CatalogError);
    expect(() => loadCatalog(writeCatalog(content), {})).toThrow(message);
  });
});
