import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolGrants } from "./db/schema/index";
import { createTestApp, type TestApp } from "./testing/test-app";
import { createUserWithSession, type TestUser } from "./testing/users";

/*
 * Issue 23 §2: whatever arrives (arbitrary JSON, strings with any code unit, numbers, content
 * types, query strings), no route family answers 5xx or cuts its answer short, and every error
 * is in its family's shape. Fixed seed and bounded runs, so the suite stays fast and repeatable.
 */

const RUNS = { seed: 23, numRuns: 50, endOnFailure: true };

let t: TestApp;
let user: TestUser;
let apiKey: string;

beforeAll(async () => {
  t = await createTestApp();
  user = await createUserWithSession(t, { balance: "5" });
  await t.database.db.insert(toolGrants).values({ userId: user.userId, toolId: "pinyin", grantedAt: t.clock.now() });
  apiKey = (await t.app.inject({ method: "POST", url: "/api/v1/console/keys", headers: user.headers, payload: { name: "property" } })).json().secret;
});
afterAll(() => t.close());

/** Any UTF-16 code unit, with NUL, controls, bidi controls, lone surrogates and quoting characters often. */
const nasty = fc.constantFrom("\u0000", "\n", "\r", "\t", "\u001b", "\u0085", "\u202e", "\ud800", "\udc00", "%", "'", '"', "=", ";", "中", "a", "1");
const anyText = fc.string({ unit: fc.oneof(nasty, fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code))), maxLength: 40 });
const anyScalar = fc.oneof(anyText, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.bigInt().map(String), fc.constant("9".repeat(40)));
const anyContentType = fc.oneof(
  fc.constantFrom("application/json", "application/json; charset=utf-8", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data", "application/octet-stream", "application/json; charset=utf-16"),
  fc.string({ maxLength: 30 }),
);

/** A body: a JSON document with the route's own field names holding anything, any JSON, or any text. */
function anyBody(fields: string[]) {
  return fc.oneof(
    fc.tuple(fc.constantFrom(...fields), anyText).map(([field, value]) => JSON.stringify({ [field]: value })),
    fc.dictionary(fc.constantFrom(...fields), fc.oneof(anyScalar, fc.array(anyScalar, { maxLength: 3 }))).map((value) => JSON.stringify(value)),
    fc.jsonValue().map((value) => JSON.stringify(value)),
    anyText,
  );
}

/** A query string: the route's own parameters holding anything (percent-encoded), or raw text. */
function anyQuery(params: string[]) {
  return fc.oneof(
    fc.dictionary(fc.constantFrom(...params), anyText).map((values) => Object.entries(values).map(([k, v]) => `${k}=${encodeURIComponent(v.replace(/[\ud800-\udfff]/g, "\u0000"))}`).join("&")),
    fc.string({ unit: "binary-ascii", maxLength: 30 }).map((raw) => raw.replace(/[#\s]/g, "%")),
  );
}

type Family = "console" | "gateway";

async function expectWellAnswered(family: Family, request: { method: string; url: string; payload?: string; headers?: Record<string, string> }) {
  // A cut answer makes inject throw ("response destroyed before completion").
  const res = await t.app.inject({ ...request, method: request.method as "POST" });
  expect(res.statusCode, `${request.method} ${request.url} ${request.payload ?? ""}`).toBeLessThan(500);
  if (res.statusCode >= 400 && String(res.headers["content-type"] ?? "").startsWith("application/json")) {
    const body = res.json();
    if (family === "console") expect(body).toEqual({ code: expect.any(String), message: expect.any(String), ...(body.retryAfterSeconds ? { retryAfterSeconds: body.retryAfterSeconds } : {}) });
    else expect(Object.keys(body.error ?? {})).toEqual(expect.arrayContaining(["code", "message"]));
  }
}

const consoleBodies: [string, string, string[]][] = [
  ["POST", "/api/v1/console/keys", ["name", "expiresAt", "spendLimit", "allowedTools", "ipAllowlist"]],
  ["PATCH", "/api/v1/console/keys/1", ["name", "enabled", "expiresAt", "spendLimit", "allowedTools", "ipAllowlist"]],
  ["POST", "/api/v1/console/applications", ["toolId", "companyOrProject", "useCase", "expectedMonthlyCalls", "contact"]],
  ["POST", "/api/v1/console/redeem", ["code"]],
  ["POST", "/api/v1/console/payments", ["method", "channel", "amount"]],
  ["POST", "/api/v1/auth/phone/login", ["telephone", "code", "recommendCode"]],
  ["POST", "/api/v1/auth/phone/verification_code", ["telephone", "captchaResult"]],
];

const consoleQueries: [string, string[]][] = [
  ["/api/v1/console/billing", ["from", "to", "toolId", "keyId", "cursor", "limit"]],
  ["/api/v1/console/billing.csv", ["from", "to", "toolId", "keyId"]],
  ["/api/v1/console/credits", ["from", "to", "cursor", "limit"]],
  ["/api/v1/console/credits.csv", ["from", "to"]],
  ["/api/v1/console/usage", ["days", "tzOffset"]],
];

describe("the console API never answers 5xx nor cuts its answer", () => {
  it.each(consoleBodies)("%s %s, over arbitrary bodies and content types", async (method, url, fields) => {
    await fc.assert(
      fc.asyncProperty(anyBody(fields), anyContentType, async (payload, contentType) => {
        await expectWellAnswered("console", { method, url, payload, headers: { ...user.headers, "content-type": contentType } });
      }),
      RUNS,
    );
  });

  it.each(consoleQueries)("GET %s, over arbitrary query strings", async (path, params) => {
    await fc.assert(
      fc.asyncProperty(anyQuery(params), async (query) => {
        await expectWellAnswered("console", { method: "GET", url: `${path}?${query}`, headers: user.headers });
      }),
      RUNS,
    );
  });
});

describe("the gateway never answers 5xx nor cuts its answer", () => {
  it.each([
    ["echo", ["text"]],
    ["pinyin", ["text", "tone"]],
    ["qrcode", ["text", "size", "format", "margin"]],
  ])("POST /v1/tools/%s, over arbitrary bodies and content types", async (tool, fields) => {
    await fc.assert(
      fc.asyncProperty(anyBody(fields as string[]), anyContentType, async (payload, contentType) => {
        await expectWellAnswered("gateway", { method: "POST", url: `/v1/tools/${tool}`, payload, headers: { authorization: `Bearer ${apiKey}`, "content-type": contentType } });
      }),
      RUNS,
    );
  });

  it("over arbitrary paths and queries after the tool id", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "binary-ascii", maxLength: 40 }), async (rest) => {
        const tail = rest.replace(/[#\s]/g, "%");
        await expectWellAnswered("gateway", { method: "GET", url: `/v1/tools/echo/${tail}`, headers: { authorization: `Bearer ${apiKey}` } });
      }),
      RUNS,
    );
  });
});

describe("pages never answer 5xx", () => {
  it("over arbitrary paths, /docs included", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("/", "/docs/", "/console/", "/api/v1/"), fc.string({ unit: "binary-ascii", maxLength: 40 }), async (prefix, rest) => {
        const tail = rest.replace(/[#\s]/g, "%");
        const res = await t.app.inject({ method: "GET", url: `${prefix}${tail}` });
        expect(res.statusCode, `${prefix}${tail}`).toBeLessThan(500);
        for (const value of Object.values(res.headers)) expect(String(value)).toMatch(/^[\x20-\x7e]*$/);
      }),
      RUNS,
    );
  });
});
