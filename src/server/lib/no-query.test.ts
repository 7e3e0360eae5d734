import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../testing/test-app";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe("a query parameter no route takes", () => {
  it("is refused by name on the captcha routes, as the console's GET routes refuse it, not ignored", async () => {
    for (const path of ["/api/v1/auth/captcha", "/api/v1/auth/captcha/altcha/challenge"]) {
      expect((await t.app.inject({ method: "GET", url: path })).statusCode, path).toBe(200);
      const refused = await t.app.inject({ method: "GET", url: `${path}?verbose=1` });
      expect([refused.statusCode, refused.json()], path).toEqual([400, { code: "validation_failed", message: "the query string does not take the parameter verbose" }]);
    }
  });

  it("is ignored by the health checks and the public catalog, which probes and caches call with cache-busters", async () => {
    for (const path of ["/api/v1/tools", "/api/v1/health", "/api/v1/ready"]) {
      expect((await t.app.inject({ method: "GET", url: `${path}?ts=1764460800` })).statusCode, path).toBe(200);
    }
  });
});
