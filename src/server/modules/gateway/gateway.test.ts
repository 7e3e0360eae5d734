import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatMoney, parseMoney } from "#shared/money";
import { apiKeys, ledgerEntries, toolGrants, usageRecords, users } from "../../db/schema/index";
import { createIdempotencyStore } from "../../lib/idempotency-store";
import { renewLease } from "../../lib/instance-lease";
import { refuseUpdates } from "../../testing/faults";
import { createTestApp, TEST_SECRET, type TestApp } from "../../testing/test-app";
import { createUserWithSession, type TestUser } from "../../testing/users";
import { verifyLedger } from "../ledger/verify";
import { chargeBatch } from "../ledger/charges";
import { refundAbandonedCalls, refundBatch } from "../ledger/refunds";
import { createApiKey, createUserWithKey } from "../../testing/keys";

let t: TestApp;
let upstream: http.Server;
/** Requests the fake upstream has received, to show which calls reached it. */
let upstreamCalls = 0;

function writeCatalog(upstreamBase: string): string {
  const tool = (id: string, handler: object, extra: object = {}) => ({
    id,
    name: id,
    description: `${id} tool`,
    category: "test",
    price: "0.01",
    rateLimitPerMinute: 100_000,
    handler,
    ...extra,
  });
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "gateway-")), "tools.json");
  fs.writeFileSync(
    file,
    JSON.stringify({
      tools: [
        tool("echo", { type: "builtin", name: "echo" }),
        tool("qrcode", { type: "builtin", name: "qrcode" }),
        tool("pinyin", { type: "builtin", name: "pinyin" }, { price: "0.001", unit: "character", requiresApproval: true }),
        tool("limited", { type: "builtin", name: "echo" }, { rateLimitPerMinute: 2 }),
        tool("weather", { type: "http", url: `${upstreamBase}/ok`, timeoutMs: 5000 }),
        tool("broken", { type: "http", url: `${upstreamBase}/fail` }),
        tool("slow", { type: "http", url: `${upstreamBase}/slow`, timeoutMs: 200 }),
        tool("hangup", { type: "http", url: `${upstreamBase}/hangup` }),
        tool("picky", { type: "http", url: `${upstreamBase}/bad-request` }),
      ],
    }),
  );
  return file;
}

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    upstreamCalls += 1;
    req.resume();
    req.on("end", () => {
      if (req.url?.startsWith("/slow")) return;
      if (req.url?.startsWith("/hangup")) return req.socket.destroy();
      if (req.url?.startsWith("/fail")) return res.writeHead(500).end("boom");
      if (req.url?.startsWith("/bad-request")) return res.writeHead(400, { "content-type": "application/json" }).end('{"why":"no city"}');
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ path: req.url, temperature: 21 }));
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  t = await createTestApp({ TOOLS_CATALOG: writeCatalog(base) });
});
afterAll(async () => {
  await t.close();
  upstream.closeAllConnections();
  upstream.close();
});

const newKey = (user: TestUser, body: object = {}) => createApiKey(t, user, body);
const funded = (balance: string, key: object = {}) => createUserWithKey(t, { balance, key });

const call = (secret: string | null, toolId = "echo", payload: unknown = { hello: "world" }, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: "POST",
    url: `/v1/tools/${toolId}`,
    payload: JSON.stringify(payload),
    headers: { "content-type": "application/json", ...(secret ? { authorization: `Bearer ${secret}` } : {}), ...headers },
  });

async function balanceOf(userId: number): Promise<string> {
  const [row] = await t.database.db.select({ balance: users.balance }).from(users).where(eq(users.id, userId));
  return formatMoney(row!.balance);
}

async function expectLedgerConsistent() {
  expect((await verifyLedger(t.database.db)).problems).toEqual([]);
}

describe("a successful call", () => {
  it("runs the tool, charges its price once, and says what it cost", async () => {
    const { user, key } = await funded("1");
    const res = await call(key.secret, "echo", { hello: "世界" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ hello: "世界" });
    expect(res.headers["x-tollgate-cost"]).toBe("0.01");
    expect(res.headers["x-request-id"]).toBeTruthy();
    expect(await balanceOf(user.userId)).toBe("0.99");
    const entries = await t.database.db.select().from(ledgerEntries).where(eq(ledgerEntries.userId, user.userId)).orderBy(ledgerEntries.id);
    expect(entries.map((e) => [e.kind, formatMoney(e.amount), formatMoney(e.balanceAfter)])).toEqual([
      ["adjustment", "1.00", "1.00"],
      ["charge", "-0.01", "0.99"],
    ]);
    // A built-in call's usage row is written once, complete, before the answer.
    const [usage] = await t.database.db.select().from(usageRecords).where(eq(usageRecords.userId, user.userId));
    expect(usage).toMatchObject({ toolId: "echo", units: 1, amount: 10_000n, status: "succeeded", httpStatus: 200, requestId: res.headers["x-request-id"] });
    expect(usage!.completedAt).toBeInstanceOf(Date);
    expect(usage!.latencyMs).toBeGreaterThanOrEqual(0);
    const keys = await t.app.inject({ url: "/api/v1/console/keys", headers: user.headers });
    expect(keys.json().keys[0].spent).toBe("0.01");
    await expectLedgerConsistent();
  });

  it("passes sub-paths, queries and methods through to an HTTP upstream", async () => {
    const { key } = await funded("1");
    const res = await t.app.inject({ method: "GET", url: "/v1/tools/weather/today?city=hz", headers: { authorization: `Bearer ${key.secret}` } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ path: "/ok/today?city=hz", temperature: 21 });
  });

  it("charges an HTTP upstream call before it runs, then records how it ended", async () => {
    const { user, key } = await funded("1");
    const res = await call(key.secret, "weather");
    expect(res.statusCode).toBe(200);
    expect(res.headers["x-tollgate-cost"]).toBe("0.01");
    expect(await balanceOf(user.userId)).toBe("0.99");
    // Recorded before the answer: a row left pending would be refunded by the sweeper.
    const [usage] = await t.database.db.select().from(usageRecords).where(eq(usageRecords.userId, user.userId));
    expect(usage).toMatchObject({ toolId: "weather", status: "succeeded", httpStatus: 200, amount: 10_000n });
    await expectLedgerConsistent();
  });

  it("prices per-unit tools by the units used", async () => {
    const { user, key } = await funded("1");
    await t.database.db.insert(toolGrants).values({ userId: user.userId, toolId: "pinyin", grantedAt: t.clock.now() });
    const res = await call(key.secret, "pinyin", { text: "你好 world 世界" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["x-tollgate-cost"]).toBe("0.004");
    expect(await balanceOf(user.userId)).toBe("0.996");
  });
});

describe("refusals: each has its status and code, and none costs anything", () => {
  it.each([
    { label: "no key", secret: null, status: 401, code: "invalid_key" },
    { label: "an unknown key", secret: "tg_" + "x".repeat(43), status: 401, code: "invalid_key" },
    { label: "a malformed key", secret: "sk-123", status: 401, code: "invalid_key" },
  ])("$label → $status $code", async ({ secret, status, code }) => {
    const res = await call(secret);
    expect(res.statusCode).toBe(status);
    expect(res.json()).toEqual({ error: { code, message: expect.any(String) } });
  });

  it("an unknown tool → 404 unknown_tool", async () => {
    const { key } = await funded("1");
    const res = await call(key.secret, "nope");
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toEqual({ code: "unknown_tool", message: `there is no tool with the id "nope": the tools and their ids are listed at ${t.app.config.publicUrl}/docs/tools.html` });
    // Ids are case-sensitive: a tool's name written as its id is pointed to the id.
    const named = await call(key.secret, "Echo");
    expect(named.statusCode).toBe(404);
    expect(named.json().error).toEqual({ code: "unknown_tool", message: 'there is no tool with the id "Echo": tool ids are case-sensitive, did you mean "echo"?' });
  });

  it("a disabled key is refused at once, and works again when enabled", async () => {
    const { user, key } = await funded("1");
    expect((await call(key.secret)).statusCode).toBe(200);
    await t.app.inject({ method: "PATCH", url: `/api/v1/console/keys/${key.id}`, headers: user.headers, payload: { enabled: false } });
    const refused = await call(key.secret);
    expect(refused.statusCode).toBe(401);
    expect(refused.json().error.code).toBe("invalid_key");
    await t.app.inject({ method: "PATCH", url: `/api/v1/console/keys/${key.id}`, headers: user.headers, payload: { enabled: true } });
    expect((await call(key.secret)).statusCode).toBe(200);
    await t.app.inject({ method: "DELETE", url: `/api/v1/console/keys/${key.id}`, headers: user.headers });
    expect((await call(key.secret)).statusCode).toBe(401);
    expect(await balanceOf(user.userId)).toBe("0.98");
  });

  it("an empty balance → 402 insufficient_balance, saying what the call needed held and not the balance", async () => {
    const { user, key } = await funded("0.005");
    // A built-in tool holds nothing (it is charged once it has answered): what the call costs.
    const res = await call(key.secret);
    expect(res.statusCode).toBe(402);
    expect(res.json().error).toEqual({ code: "insufficient_balance", message: "this call costs ¥0.01, more than the balance has: top up to continue" });
    // An HTTP tool's price is held before it runs.
    const held = await call(key.secret, "weather");
    expect(held.statusCode).toBe(402);
    expect(held.json().error).toEqual({ code: "insufficient_balance", message: "this call needs ¥0.01 held, more than the balance has: top up to continue" });
    expect(await balanceOf(user.userId)).toBe("0.005");
  });

  it("a call whose hold does not fit in what its key has left says both amounts", async () => {
    const { user, key } = await funded("1", { spendLimit: "0.025" });
    expect((await call(key.secret)).statusCode).toBe(200);
    expect((await call(key.secret)).statusCode).toBe(200);
    // A built-in tool is charged what it costs once it has answered; an HTTP tool holds its price first.
    for (const [tool, needs] of [
      ["echo", "costs ¥0.01"],
      ["weather", "needs ¥0.01 held"],
    ] as const) {
      const res = await call(key.secret, tool);
      expect(res.statusCode).toBe(402);
      expect(res.json().error).toEqual({
        code: "spend_limit_reached",
        // A lifetime limit never renews: raising it is the only way on.
        message: `this call ${needs} and this API key has ¥0.005 left of its spend limit: raise the limit in the console`,
      });
    }
    expect(await balanceOf(user.userId)).toBe("0.98");
    await expectLedgerConsistent();
  });

  it("a key over a daily or monthly spend limit is told when the limit renews", async () => {
    for (const [period, renews] of [
      ["day", "at midnight, Beijing time"],
      ["month", "on the 1st of next month, Beijing time"],
    ] as const) {
      const { key } = await funded("1", { spendLimit: "0.005", spendLimitPeriod: period });
      const res = await call(key.secret);
      expect(res.statusCode).toBe(402);
      expect(res.json().error.message).toBe(`this call costs ¥0.01 and this API key has ¥0.005 left of its spend limit: raise the limit in the console, or wait until it renews ${renews}`);
    }
  });

  it("a key at its spend limit → 402 spend_limit_reached", async () => {
    const { user, key } = await funded("1", { spendLimit: "0.02" });
    expect((await call(key.secret)).statusCode).toBe(200);
    expect((await call(key.secret)).statusCode).toBe(200);
    const res = await call(key.secret);
    expect(res.statusCode).toBe(402);
    expect(res.json().error.code).toBe("spend_limit_reached");
    expect(await balanceOf(user.userId)).toBe("0.98");
  });

  it("a key limited to other tools → 403 tool_not_allowed", async () => {
    const { key } = await funded("1", { allowedTools: ["qrcode"] });
    const res = await call(key.secret, "echo");
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe("tool_not_allowed");
  });

  it("a key used from outside its IP allowlist → 403 ip_not_allowed; from inside → 200", async () => {
    const { key } = await funded("1", { ipAllowlist: ["10.0.0.0/8"] });
    const res = await call(key.secret);
    expect(res.statusCode).toBe(403);
    // A loopback address is a proxy's: the message names it but does not advise allowing it, which would let every caller through.
    expect(res.json().error).toEqual({
      code: "ip_not_allowed",
      message: "this API key may not be used from this IP address (the gateway sees 127.0.0.1, the address of a proxy in front of it)",
    });
    // Any other address is the caller's as the gateway sees it (behind NAT, not the one a developer would guess), IPv4 written plainly.
    for (const remoteAddress of ["203.0.113.7", "::ffff:203.0.113.7"]) {
      const outside = await t.app.inject({ method: "POST", url: "/v1/tools/echo", payload: "{}", remoteAddress, headers: { "content-type": "application/json", authorization: `Bearer ${key.secret}` } });
      expect(outside.json().error).toEqual({
        code: "ip_not_allowed",
        message: "this API key may not be used from this IP address (203.0.113.7): add it to the key's IP allowlist in the console",
      });
    }
    const { key: local } = await funded("1", { ipAllowlist: ["127.0.0.1", "::1"] });
    expect((await call(local.secret)).statusCode).toBe(200);
  });

  it("a tool that needs approval → 403 tool_not_approved until access is granted", async () => {
    const { user, key } = await funded("1");
    const res = await call(key.secret, "pinyin", { text: "你好" });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe("tool_not_approved");
    await t.database.db.insert(toolGrants).values({ userId: user.userId, toolId: "pinyin", grantedAt: t.clock.now() });
    expect((await call(key.secret, "pinyin", { text: "你好" })).statusCode).toBe(200);
  });

  it("too many calls per minute → 429 rate_limited with Retry-After", async () => {
    const { user, key } = await funded("1");
    expect((await call(key.secret, "limited")).statusCode).toBe(200);
    expect((await call(key.secret, "limited")).statusCode).toBe(200);
    const res = await call(key.secret, "limited");
    expect(res.statusCode).toBe(429);
    expect(res.json().error.code).toBe("rate_limited");
    expect(Number(res.headers["retry-after"])).toBeGreaterThan(0);
    expect(await balanceOf(user.userId)).toBe("0.98");
  });
});

describe("failed tools are not charged", () => {
  it.each([
    { label: "an upstream 500", toolId: "broken", status: 502, code: "upstream_failed" },
    { label: "an upstream that times out", toolId: "slow", status: 504, code: "upstream_timeout" },
    { label: "an upstream that closes the connection", toolId: "hangup", status: 502, code: "upstream_failed" },
  ])("$label → $status $code, balance unchanged, usage refunded", async ({ toolId, status, code }) => {
    const { user, key } = await funded("1");
    const res = await call(key.secret, toolId);
    expect(res.statusCode).toBe(status);
    expect(res.json().error.code).toBe(code);
    expect(await balanceOf(user.userId)).toBe("1.00");
    const [usage] = await t.database.db.select().from(usageRecords).where(eq(usageRecords.userId, user.userId));
    expect(usage).toMatchObject({ status: "refunded", amount: 0n });
    await expectLedgerConsistent();
  });

  it("qrcode refuses text it cannot encode (a lone surrogate, more than a QR code holds) with 400, uncharged", async () => {
    const { user, key } = await funded("1");
    for (const text of ["\ud800", "❤️".repeat(500)]) {
      const res = await call(key.secret, "qrcode", { text });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe("invalid_request");
      expect(res.headers["x-tollgate-cost"]).toBe("0.00");
    }
    expect(await balanceOf(user.userId)).toBe("1.00");
  });

  it("a tool's 4xx answer goes back as it is, uncharged", async () => {
    const { user, key } = await funded("1");
    const res = await call(key.secret, "picky");
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ why: "no city" });
    expect(res.headers["x-tollgate-cost"]).toBe("0.00");
    expect(await balanceOf(user.userId)).toBe("1.00");
  });
});

describe("a tool's answer served on the site's origin", () => {
  it("is sandboxed: HTML or SVG from a tool, first time or replayed, runs no script and has no origin in a browser", async () => {
    const { key } = await funded("1");
    const page = '<script>fetch("/api/v1/tools/user-info")</script><form action="/api/v1/auth/login"></form>';
    const sendHtml = (headers: Record<string, string> = {}) =>
      t.app.inject({ method: "POST", url: "/v1/tools/echo", payload: page, headers: { "content-type": "text/html", authorization: `Bearer ${key.secret}`, ...headers } });
    const first = await sendHtml({ "idempotency-key": "html-answer-0001" });
    const replayed = await sendHtml({ "idempotency-key": "html-answer-0001" });
    for (const res of [first, replayed, await sendHtml()]) {
      expect(res.body).toBe(page);
      expect(res.headers["content-type"]).toMatch(/^text\/html/);
      expect(res.headers["content-security-policy"]).toBe("sandbox; default-src 'none'; frame-ancestors 'none'");
      expect(res.headers["x-content-type-options"]).toBe("nosniff");
    }
    expect(replayed.headers["idempotent-replayed"]).toBe("true");
  });
});

describe("Idempotency-Key", () => {
  it("makes a retried call run and charge once, replaying the first answer", async () => {
    const { user, key } = await funded("1");
    const first = await call(key.secret, "echo", { n: 1 }, { "idempotency-key": "retry-me-0001" });
    const second = await call(key.secret, "echo", { n: 1 }, { "idempotency-key": "retry-me-0001" });
    expect(first.statusCode).toBe(200);
    expect(second.statusCode).toBe(200);
    expect(second.json()).toEqual({ n: 1 });
    expect(second.headers["idempotent-replayed"]).toBe("true");
    expect(await balanceOf(user.userId)).toBe("0.99");
    const different = await call(key.secret, "echo", { n: 2 }, { "idempotency-key": "retry-me-0001" });
    expect(different.statusCode).toBe(422);
    expect(different.json().error.code).toBe("idempotency_key_reused");
  });

  it("refuses a malformed key in the gateway's error shape, before the call is charged", async () => {
    const { user, key } = await funded("1");
    const res = await call(key.secret, "echo", { n: 1 }, { "idempotency-key": "bad key!" });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe("invalid_idempotency_key");
    expect(await balanceOf(user.userId)).toBe("1.00");
  });

  it("lets a failed call be retried with the same key", async () => {
    const { user, key } = await funded("1");
    expect((await call(key.secret, "broken", {}, { "idempotency-key": "retry-fail-01" })).statusCode).toBe(502);
    expect((await call(key.secret, "broken", {}, { "idempotency-key": "retry-fail-01" })).statusCode).toBe(502);
    expect(await balanceOf(user.userId)).toBe("1.00");
  });
});

describe("when the database refuses a write after the charge", () => {
  it("an upstream call whose success cannot be recorded is answered 500 and refunded, not answered and later given away", async () => {
    const { user, key } = await funded("1");
    const restore = await refuseUpdates(t.database.db, "usage_records", `new.status = 'succeeded' and new.user_id = ${user.userId}`);
    try {
      const res = await call(key.secret, "weather");
      expect(res.statusCode).toBe(500);
      expect(res.json().error.code).toBe("internal_error");
    } finally {
      await restore();
    }
    expect(await balanceOf(user.userId)).toBe("1.00");
    const [usage] = await t.database.db.select().from(usageRecords).where(eq(usageRecords.userId, user.userId));
    expect(usage).toMatchObject({ status: "refunded", amount: 0n });
    await expectLedgerConsistent();
  });

  it("a charged call whose answer cannot be kept for replay is not sent but refunded, and a retry with its Idempotency-Key runs once", async () => {
    const { user, key } = await funded("1");
    const restore = await refuseUpdates(t.database.db, "idempotency_keys", `new.scope = 'apikey:${key.id}'`);
    try {
      const first = await call(key.secret, "echo", { n: 1 }, { "idempotency-key": "keep-fails-01" });
      expect(first.statusCode).toBe(500);
      expect(first.json().error.code).toBe("internal_error");
    } finally {
      await restore();
    }
    expect(await balanceOf(user.userId)).toBe("1.00");
    expect(t.logs()).toContain("could not keep a call's answer for replay; it is not sent, and the call is refunded");
    const retry = await call(key.secret, "echo", { n: 1 }, { "idempotency-key": "keep-fails-01" });
    expect(retry.statusCode).toBe(200);
    expect(retry.json()).toEqual({ n: 1 });
    expect(retry.headers["x-tollgate-cost"]).toBe("0.01");
    const replayed = await call(key.secret, "echo", { n: 1 }, { "idempotency-key": "keep-fails-01" });
    expect(replayed.headers["idempotent-replayed"]).toBe("true");
    expect(await balanceOf(user.userId)).toBe("0.99");
    await expectLedgerConsistent();
  });
});

describe("concurrency", () => {
  it("500 concurrent calls against a balance for 123: exactly 123 succeed, the rest get 402, the balance ends exact", async () => {
    const { user, key } = await funded(formatMoney(parseMoney("0.01") * 123n));
    const results = await Promise.all(Array.from({ length: 500 }, (_, i) => call(key.secret, "echo", { i })));
    const statuses = results.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(123);
    expect(statuses.filter((s) => s === 402)).toHaveLength(377);
    expect(await balanceOf(user.userId)).toBe("0.00");
    await expectLedgerConsistent();
  });

  it("concurrent HTTP upstream calls against a balance for 7: exactly 7 are served, the rest get 402 without reaching the upstream", async () => {
    const { user, key } = await funded(formatMoney(parseMoney("0.01") * 7n));
    const before = upstreamCalls;
    const results = await Promise.all(Array.from({ length: 40 }, () => call(key.secret, "weather")));
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(7);
    expect(results.filter((r) => r.statusCode === 402)).toHaveLength(33);
    expect(upstreamCalls - before).toBe(7);
    expect(await balanceOf(user.userId)).toBe("0.00");
    await expectLedgerConsistent();
  });

  it("many users and keys at once: each balance ends exact", async () => {
    const payers = await Promise.all(Array.from({ length: 5 }, () => funded("0.25")));
    const results = await Promise.all(payers.flatMap(({ key }) => Array.from({ length: 40 }, (_, i) => call(key.secret, "echo", { i }))));
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(125);
    for (const { user } of payers) expect(await balanceOf(user.userId)).toBe("0.00");
    await expectLedgerConsistent();
  });
});

describe("a charge batch", () => {
  it("stores text with quotes, backslashes and commas exactly as given", async () => {
    const { user, key } = await funded("1");
    const requestId = 'odd "id", with \\ and {braces}';
    const [charged] = await chargeBatch(t.database.db, [
      { userId: user.userId, apiKeyId: key.id, toolId: "echo", units: 1, amount: 10_000n, requestId, at: t.clock.now() },
    ]);
    expect(charged).toMatchObject({ ok: true });
    const [usage] = await t.database.db.select().from(usageRecords).where(eq(usageRecords.requestId, requestId));
    expect(usage).toMatchObject({ requestId, status: "pending", httpStatus: null });
  });
});

describe("a charge batch, in one statement", () => {
  const item = (userId: number, apiKeyId: number, amount: string, requestId: string) => ({
    userId,
    apiKeyId,
    toolId: "echo",
    units: 1,
    amount: parseMoney(amount),
    requestId,
    at: t.clock.now(),
    ended: { httpStatus: 200, latencyMs: 3, at: t.clock.now() },
  });

  it("admits calls in arrival order while the balance and each key's spend limit allow, and a refusal does not stop a later call that fits", async () => {
    const { user, key: limited } = await funded("0.05", { spendLimit: "0.04" });
    const open = await newKey(user);
    const outcomes = await chargeBatch(t.database.db, [
      item(user.userId, limited.id, "0.03", "order-1"),
      item(user.userId, limited.id, "0.02", "order-2"),
      item(user.userId, open.id, "0.03", "order-3"),
      item(user.userId, open.id, "0.02", "order-4"),
    ]);
    expect(outcomes).toEqual([
      { ok: true, usageId: expect.any(Number), balance: parseMoney("0.02") },
      { ok: false, reason: "spend_limit_reached" },
      { ok: false, reason: "insufficient_balance" },
      { ok: true, usageId: expect.any(Number), balance: 0n },
    ]);
    expect(await balanceOf(user.userId)).toBe("0.00");
    const entries = await t.database.db.select().from(ledgerEntries).where(eq(ledgerEntries.userId, user.userId)).orderBy(ledgerEntries.id);
    const charges = entries.filter((e) => e.kind === "charge").map((e) => [e.reference, formatMoney(e.amount), formatMoney(e.balanceAfter)]);
    expect(charges).toEqual([
      ["order-1", "-0.03", "0.02"],
      ["order-4", "-0.02", "0.00"],
    ]);
    const usage = await t.database.db.select().from(usageRecords).where(eq(usageRecords.userId, user.userId)).orderBy(usageRecords.id);
    expect(usage.map((u) => [u.requestId, u.status, u.httpStatus])).toEqual([
      ["order-1", "succeeded", 200],
      ["order-4", "succeeded", 200],
    ]);
    const keys = await t.app.inject({ method: "GET", url: "/api/v1/console/keys", headers: user.headers });
    const spent = Object.fromEntries(keys.json().keys.map((k: { id: number; spent: string }) => [k.id, k.spent]));
    expect(spent).toEqual({ [limited.id]: "0.03", [open.id]: "0.02" });
    await expectLedgerConsistent();
  });

  it("fails whole, writing nothing, when a call names a user or key that does not exist", async () => {
    const { user, key } = await funded("1");
    await expect(
      chargeBatch(t.database.db, [item(user.userId, key.id, "0.01", "whole-1"), item(user.userId, 987_654_321, "0.01", "whole-2")]),
    ).rejects.toMatchObject({ cause: { message: expect.stringMatching(/charge for a missing user or key \(whole-2\)/) } });
    expect(await balanceOf(user.userId)).toBe("1.00");
    expect(await t.database.db.select().from(usageRecords).where(eq(usageRecords.userId, user.userId))).toEqual([]);
  });

  it("keeps billing history's users and keys: neither can be deleted", async () => {
    const { key } = await funded("1");
    const refusal = (table: string) => ({ cause: { message: expect.stringMatching(new RegExp(`${table} rows are never deleted`)) } });
    await expect(t.database.db.delete(apiKeys).where(eq(apiKeys.id, key.id))).rejects.toMatchObject(refusal("api_keys"));
    // A user with no ledger entries and no keys, so only the trigger stands in the way.
    const newcomer = await createUserWithSession(t);
    await expect(t.database.db.delete(users).where(eq(users.id, newcomer.userId))).rejects.toMatchObject(refusal("users"));
    expect(await t.database.db.select({ id: users.id }).from(users).where(eq(users.id, newcomer.userId))).toHaveLength(1);
  });
});

describe("calls abandoned by a stopped server", () => {
  it("are refunded once, after the grace period, and never twice", async () => {
    const { user, key } = await funded("1");
    const [charged] = await chargeBatch(t.database.db, [
      { userId: user.userId, apiKeyId: key.id, toolId: "echo", units: 1, amount: 10_000n, requestId: "abandoned-1", at: t.clock.now() },
    ]);
    expect(charged).toMatchObject({ ok: true });
    expect(await balanceOf(user.userId)).toBe("0.99");

    expect((await refundAbandonedCalls(t.database.db, { olderThan: new Date(t.clock.now().getTime() - 600_000), now: t.clock.now() })).calls).toBe(0);
    t.clock.advance(601_000);
    const cutoff = new Date(t.clock.now().getTime() - 600_000);
    expect((await refundAbandonedCalls(t.database.db, { olderThan: cutoff, now: t.clock.now() })).calls).toBeGreaterThanOrEqual(1);
    expect(await balanceOf(user.userId)).toBe("1.00");
    expect((await refundAbandonedCalls(t.database.db, { olderThan: cutoff, now: t.clock.now() })).calls).toBe(0);

    // The call's own late refund finds it settled and gives nothing back again.
    await refundBatch(t.database.db, [
      {
        usageId: (charged as { usageId: number }).usageId,
        userId: user.userId,
        apiKeyId: key.id,
        amount: 10_000n,
        requestId: "abandoned-1",
        at: t.clock.now(),
        finalStatus: "refunded",
        units: 1,
        httpStatus: null,
        latencyMs: 1,
      },
    ]);
    expect(await balanceOf(user.userId)).toBe("1.00");
    const [usage] = await t.database.db.select().from(usageRecords).where(eq(usageRecords.requestId, "abandoned-1"));
    expect(usage).toMatchObject({ status: "refunded", amount: 0n });
    await expectLedgerConsistent();
  });

  it("retries of a dead call's key racing past the window: the call is refunded once and run once", async () => {
    const { user, key } = await funded("1");
    const payload = { race: true };
    const fingerprint = `\n${Buffer.from(JSON.stringify(payload)).toString("base64")}`;
    await t.app.idempotency.claim({ scope: `apikey:${key.id}`, key: "dead-race-01", route: "POST echo", fingerprint, now: t.clock.now(), requestId: "dead-race-call" });
    await chargeBatch(t.database.db, [
      { userId: user.userId, apiKeyId: key.id, toolId: "echo", units: 1, amount: 10_000n, requestId: "dead-race-call", at: t.clock.now(), ended: { httpStatus: 200, latencyMs: 1, at: t.clock.now() } },
    ]);
    t.clock.advance(t.config.gatewayAbandonedAfterMs + 1);
    const retries = await Promise.all(Array.from({ length: 8 }, () => call(key.secret, "echo", payload, { "idempotency-key": "dead-race-01" })));
    const ran = retries.filter((r) => r.statusCode === 200 && r.headers["idempotent-replayed"] === undefined);
    expect(ran).toHaveLength(1);
    for (const other of retries.filter((r) => !ran.includes(r))) {
      if (other.statusCode === 200) expect(other.headers["idempotent-replayed"]).toBe("true");
      else expect(other.json().error.code).toBe("idempotency_in_progress");
    }
    expect(await balanceOf(user.userId)).toBe("0.99");
    const ledger = await t.database.db.select().from(ledgerEntries).where(eq(ledgerEntries.userId, user.userId));
    expect(ledger.filter((e) => e.kind === "refund")).toHaveLength(1);
    await expectLedgerConsistent();
  });

  it("a retry resolves a claim at once when its process's lease has run out, long before the window: refunded once, run afresh once; a holder still renewing its lease keeps it", async () => {
    const { user, key } = await funded("1");
    const leaseMs = t.config.instanceLeaseMs;
    expect(leaseMs * 3).toBeLessThan(t.config.gatewayAbandonedAfterMs);
    // Another server process on the same database, holding a lease it renews.
    const otherProcess = { id: "other-process", leaseMs };
    await renewLease(t.database.db, { ...otherProcess, now: t.clock.now() });
    const otherStore = createIdempotencyStore(t.database.db, TEST_SECRET, otherProcess.id);
    const payload = { city: "leased" };
    const fingerprint = `\n${Buffer.from(JSON.stringify(payload)).toString("base64")}`;
    const payer = { userId: user.userId, apiKeyId: key.id, units: 1, amount: 10_000n, at: t.clock.now() };
    // Its upstream call charged and running (pending); and a built-in call charged, its answer not yet kept.
    const claimed = (idempotencyKey: string, toolId: string, requestId: string) =>
      otherStore.claim({ scope: `apikey:${key.id}`, key: idempotencyKey, route: `POST ${toolId}`, fingerprint, now: t.clock.now(), requestId });
    expect(await claimed("leased-claim-01", "weather", "leased-call-1")).toEqual({ outcome: "claimed" });
    await chargeBatch(t.database.db, [{ ...payer, toolId: "weather", requestId: "leased-call-1" }]);
    expect(await claimed("leased-claim-02", "echo", "leased-call-2")).toEqual({ outcome: "claimed" });
    await chargeBatch(t.database.db, [{ ...payer, toolId: "echo", requestId: "leased-call-2", ended: { httpStatus: 200, latencyMs: 1, at: t.clock.now() } }]);
    const retry = (idempotencyKey: string, toolId: string) => call(key.secret, toolId, payload, { "idempotency-key": idempotencyKey });
    const expectInProgress = async () => {
      for (const [idempotencyKey, toolId] of [["leased-claim-01", "weather"], ["leased-claim-02", "echo"]] as const) {
        const early = await retry(idempotencyKey, toolId);
        expect(early.statusCode).toBe(409);
        expect(early.json().error.code).toBe("idempotency_in_progress");
      }
    };

    // Alive: renewing, however long its calls take.
    await expectInProgress();
    for (let i = 0; i < 3; i++) {
      t.clock.advance(leaseMs - 1000);
      await renewLease(t.database.db, { ...otherProcess, now: t.clock.now() });
      await expectInProgress();
    }
    expect(await balanceOf(user.userId)).toBe("0.98");

    // Killed: it renews no more, and once its lease has run out the next retries take over.
    t.clock.advance(leaseMs + 1);
    const retries = await Promise.all(Array.from({ length: 6 }, () => retry("leased-claim-01", "weather")));
    const ran = retries.filter((r) => r.statusCode === 200 && r.headers["idempotent-replayed"] === undefined);
    expect(ran).toHaveLength(1);
    for (const other of retries.filter((r) => !ran.includes(r))) {
      if (other.statusCode === 200) expect(other.headers["idempotent-replayed"]).toBe("true");
      else expect(other.json().error.code).toBe("idempotency_in_progress");
    }
    const builtin = await retry("leased-claim-02", "echo");
    expect(builtin.statusCode).toBe(200);
    expect(builtin.headers["idempotent-replayed"]).toBeUndefined();
    for (const requestId of ["leased-call-1", "leased-call-2"]) {
      const [dead] = await t.database.db.select().from(usageRecords).where(eq(usageRecords.requestId, requestId));
      expect(dead).toMatchObject({ status: "refunded", amount: 0n });
    }
    // Had the process only stalled, its late release cannot free a claim a retry took over.
    await otherStore.release({ scope: `apikey:${key.id}`, key: "leased-claim-01", requestId: "leased-call-1" });
    for (const [idempotencyKey, toolId] of [["leased-claim-01", "weather"], ["leased-claim-02", "echo"]] as const) {
      const replayed = await retry(idempotencyKey, toolId);
      expect(replayed.statusCode).toBe(200);
      expect(replayed.headers["idempotent-replayed"]).toBe("true");
    }
    // Each dead call refunded once and its retry charged once.
    expect(await balanceOf(user.userId)).toBe("0.98");
    const refunds = (await t.database.db.select().from(ledgerEntries).where(eq(ledgerEntries.userId, user.userId))).filter((e) => e.kind === "refund");
    expect(refunds.map((e) => e.reference).sort()).toEqual(["leased-call-1", "leased-call-2"]);
    await expectLedgerConsistent();
  });

  it("free an Idempotency-Key their process left claimed once the window passes: a call never answered is refunded and run afresh, a charged stream is never run twice", async () => {
    const { user, key } = await funded("1");
    const payload = { city: "x" };
    const claimLikeADeadProcess = async (toolId: string, idempotencyKey: string, requestId: string) => {
      const fingerprint = `\n${Buffer.from(JSON.stringify(payload)).toString("base64")}`;
      const claim = await t.app.idempotency.claim({ scope: `apikey:${key.id}`, key: idempotencyKey, route: `POST ${toolId}`, fingerprint, now: t.clock.now(), requestId });
      expect(claim).toEqual({ outcome: "claimed" });
    };
    const payer = { userId: user.userId, apiKeyId: key.id, units: 1, amount: 10_000n, at: t.clock.now() };
    const ended = { httpStatus: 200, latencyMs: 1, at: t.clock.now() };

    // Killed while its upstream ran: charged, pending, no answer kept.
    await claimLikeADeadProcess("weather", "dead-claim-01", "dead-call-1");
    await chargeBatch(t.database.db, [{ ...payer, toolId: "weather", requestId: "dead-call-1" }]);
    // Killed after a built-in tool's charge, before its answer was kept: answers are kept before
    // they are sent, so it was never answered.
    await claimLikeADeadProcess("echo", "dead-claim-02", "dead-call-2");
    await chargeBatch(t.database.db, [{ ...payer, toolId: "echo", requestId: "dead-call-2", ended }]);
    // Killed after a stream had begun and was charged, before its key was settled.
    await claimLikeADeadProcess("weather", "dead-claim-03", "dead-call-3");
    await t.app.idempotency.begin({ scope: `apikey:${key.id}`, key: "dead-claim-03", requestId: "dead-call-3" }, 200);
    await chargeBatch(t.database.db, [{ ...payer, toolId: "weather", requestId: "dead-call-3", ended }]);
    // Killed in the middle of a stream: its head went out, its hold still pending.
    await claimLikeADeadProcess("weather", "dead-claim-04", "dead-call-4");
    await t.app.idempotency.begin({ scope: `apikey:${key.id}`, key: "dead-claim-04", requestId: "dead-call-4" }, 200);
    await chargeBatch(t.database.db, [{ ...payer, toolId: "weather", requestId: "dead-call-4" }]);
    expect(await balanceOf(user.userId)).toBe("0.96");

    // Within the window the owner may still be running: every retry must wait.
    for (const idempotencyKey of ["dead-claim-01", "dead-claim-02", "dead-claim-03", "dead-claim-04"]) {
      const early = await call(key.secret, idempotencyKey === "dead-claim-02" ? "echo" : "weather", payload, { "idempotency-key": idempotencyKey });
      expect(early.statusCode).toBe(409);
      expect(early.json().error.code).toBe("idempotency_in_progress");
    }
    expect(await balanceOf(user.userId)).toBe("0.96");
    t.clock.advance(t.config.gatewayAbandonedAfterMs + 1);

    for (const [toolId, idempotencyKey, deadCall] of [
      ["weather", "dead-claim-01", "dead-call-1"],
      ["echo", "dead-claim-02", "dead-call-2"],
      ["weather", "dead-claim-04", "dead-call-4"],
    ] as const) {
      const retried = await call(key.secret, toolId, payload, { "idempotency-key": idempotencyKey });
      expect(retried.statusCode).toBe(200);
      expect(retried.headers["idempotent-replayed"]).toBeUndefined();
      const [dead] = await t.database.db.select().from(usageRecords).where(eq(usageRecords.requestId, deadCall));
      expect(dead).toMatchObject({ status: "refunded", amount: 0n });
      const replayed = await call(key.secret, toolId, payload, { "idempotency-key": idempotencyKey });
      expect(replayed.statusCode).toBe(200);
      expect(replayed.headers["idempotent-replayed"]).toBe("true");
    }
    // Each dead call refunded and its retry charged: one call paid for each; the charged stream
    // kept its charge, and its retries get the stream's own final answer, not a day of 409s.
    expect(await balanceOf(user.userId)).toBe("0.96");
    for (let i = 0; i < 2; i++) {
      const streamed = await call(key.secret, "weather", payload, { "idempotency-key": "dead-claim-03" });
      expect(streamed.statusCode).toBe(409);
      expect(streamed.json().error.code).toBe("idempotency_stream_not_replayable");
    }
    const [stream] = await t.database.db.select().from(usageRecords).where(eq(usageRecords.requestId, "dead-call-3"));
    expect(stream).toMatchObject({ status: "succeeded", amount: 10_000n });
    expect(await balanceOf(user.userId)).toBe("0.96");
    await expectLedgerConsistent();
  });
});
