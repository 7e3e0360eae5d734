import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../testing/test-app";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe("GET /api/v1/tools", () => {
  it("lists the catalog with prices as decimal strings and no handler secrets", async () => {
    const res = await t.app.inject({ url: "/api/v1/tools" });
    expect(res.statusCode).toBe(200);
    const { tools } = res.json();
    expect(tools.map((x: { id: string }) => x.id)).toEqual(["echo", "qrcode", "pinyin"]);
    expect(tools[2]).toEqual({
      id: "pinyin",
      name: "Pinyin",
      description: expect.any(String),
      category: "text",
      price: "0.00002",
      unit: "character",
      requiresApproval: true,
      rateLimitPerMinute: 600,
      method: "POST",
      translations: { "zh-CN": { name: "拼音", description: expect.stringContaining("汉语拼音"), category: "文本", unit: "汉字" } },
      models: null,
      // The docs' example, which the console's Try it starts from.
      example: { path: "", contentType: "application/json", body: JSON.stringify({ text: "中国", tone: "symbol" }, null, 2) },
      freeQuota: null,
      packages: [],
      tiers: null,
    });
    expect(res.body).not.toContain("handler");
  });
});
