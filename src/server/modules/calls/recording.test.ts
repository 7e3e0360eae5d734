import { once } from "node:events";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeys, callLog, callLogDaily, users } from "../../db/schema/index";
import { PrometheusMetrics } from "../../plugins/prometheus-metrics";
import { createTestApp, type TestApp } from "../../testing/test-app";
import type { TestUser } from "../../testing/users";
import { CallLogWriter, CallTrace, daySums, sweepOldCalls } from "./index";
import { createApiKey, createUserWithKey } from "../../testing/keys";

/**
 * Every gateway call that names a user's key leaves exactly one call log row, whatever became of
 * it, with the code and charge the caller saw; calls with no key of a user leave none. Real
 * callers (inject, and node:http against the listening server) and a local fake upstream.
 */
let t: TestApp;
let upstream: http.Server;
let gatewayBase: string;
/** Streamed answers the test finishes by hand. */
const gates = new Map<string, () => void>();
const gate = (name: string) => new Promise<void>((resolve) => gates.set(name, resolve));
const open = (name: string) => gates.get(name)?.();

const UPSTREAM_FAILURE = `{"error":"database down","trace":"${"x".repeat(3000)}"}`;

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const route = req.url ?? "";
      if (route.startsWith("/ok")) return res.writeHead(200, { "content-type": "application/json" }).end('{"temperature":21}');
      if (route.startsWith("/fail")) return res.writeHead(500, { "content-type": "application/json" }).end(UPSTREAM_FAILURE);
      if (route.startsWith("/bad-request")) return res.writeHead(400, { "content-type": "application/json" }).end('{"why":"no city"}');
      if (route.startsWith("/hangup")) return req.socket.destroy();
      if (route.startsWith("/slow")) return;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write('data: {"n":1}\n\n');
      void gate(route).then(() => {
        if (route.startsWith("/cut")) return res.socket?.destroy();
        res.end('data: {"n":2}\n\n');
      });
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const tool = (id: string, handler: object, extra: object = {}) => ({ id, name: id, description: id, category: "test", price: "0.01", rateLimitPerMinute: 100_000, handler, ...extra });
  const catalog = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "call-log-")), "tools.json");
  fs.writeFileSync(
    catalog,
    JSON.stringify({
      tools: [
        tool("echo", { type: "builtin", name: "echo" }),
        tool("pinyin", { type: "builtin", name: "pinyin" }, { requiresApproval: true }),
        tool("limited", { type: "builtin", name: "echo" }, { rateLimitPerMinute: 1 }),
        tool("weather", { type: "http", url: `${base}/ok` }),
        tool("broken", { type: "http", url: `${base}/fail` }),
        tool("picky", { type: "http", url: `${base}/bad-request` }),
        tool("hangup", { type: "http", url: `${base}/hangup` }),
        tool("slow", { type: "http", url: `${base}/slow`, timeoutMs: 200 }),
        tool("tiny", { type: "http", url: `${base}/ok`, maxRequestBytes: 10 }),
        tool("stream", { type: "http", url: `${base}/stream` }),
        tool("cut", { type: "http", url: `${base}/cut` }),
      ],
    }),
  );
  t = await createTestApp({ TOOLS_CATALOG: catalog });
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  gatewayBase = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await t.close();
  upstream.closeAllConnections();
  upstream.close();
});

const newKey = (user: TestUser, body: object = {}) => createApiKey(t, user, { name: "log", ...body });
const funded = (balance = "1", keyBody: object = {}) => createUserWithKey(t, { balance, key: { name: "log", ...keyBody } });

const call = (secret: string | null, toolId: string, options: { method?: string; payload?: string; headers?: Record<string, string> } = {}) =>
  t.app.inject({
    method: (options.method ?? "POST") as "POST",
    url: `/v1/tools/${toolId}`,
    payload: options.payload ?? '{"hello":"world"}',
    headers: { "content-type": "application/json", ...(secret ? { authorization: `Bearer ${secret}` } : {}), ...options.headers },
  });

/** The rows of a user's calls, oldest first, once everything queued has been written. */
async function rowsOf(userId: number) {
  await t.app.callLog.drain();
  return t.database.db.select().from(callLog).where(eq(callLog.userId, userId)).orderBy(callLog.id);
}

/** The row of one call, waiting for it: a refused call's key may be looked up after its answer, a stream's row comes at its end. */
async function rowFor(requestId: string) {
  for (let attempt = 0; attempt < 500; attempt++) {
    await t.app.callLog.drain();
    const [row] = await t.database.db.select().from(callLog).where(eq(callLog.requestId, requestId));
    if (row) return row;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no call log row for ${requestId}`);
}

describe("a served call", () => {
  it("leaves one row: served, what it cost, its sizes, the caller's address and where its time went", async () => {
    const { user, key } = await funded();
    const res = await call(key.secret, "echo", { payload: '{"hello":"世界"}' });
    expect(res.statusCode).toBe(200);
    const rows = await rowsOf(user.userId);
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(row).toMatchObject({
      requestId: res.headers["x-request-id"],
      receivedAt: new Date("2026-03-01T08:00:00Z"),
      apiKeyId: key.id,
      toolId: "echo",
      outcome: "served",
      httpStatus: 200,
      upstreamStatus: 200,
      held: 10_000n,
      amount: 10_000n,
      units: 1,
      streamed: false,
      bytesIn: Buffer.byteLength('{"hello":"世界"}'),
      bytesOut: res.rawPayload.length,
      clientIp: "127.0.0.1",
      errorCode: null,
      errorMessage: null,
      upstreamErrorExcerpt: null,
    });
    expect(row.keyCheckedUs).toBeGreaterThanOrEqual(0);
    expect(row.firstByteUs).toBeGreaterThanOrEqual(row.keyCheckedUs!);
    expect(row.heldUs).toBeGreaterThanOrEqual(row.firstByteUs!);
    expect(row.totalUs).toBeGreaterThanOrEqual(row.heldUs!);
    expect(row.upstreamUs).toBeLessThanOrEqual(row.totalUs);
  });

  it("of an HTTP upstream keeps the hold and the charge, and adds the call to the day's sums", async () => {
    const { user, key } = await funded();
    const res = await call(key.secret, "weather");
    expect(res.statusCode).toBe(200);
    expect(await rowsOf(user.userId)).toMatchObject([{ outcome: "served", httpStatus: 200, upstreamStatus: 200, held: 10_000n, amount: 10_000n, units: 1 }]);
    expect(await daySums(t.database.db, user.userId)).toMatchObject([{ day: "2026-03-01", toolId: "weather", calls: 1, failed: 0, amount: 10_000n, units: 1 }]);
  });
});

describe("the day's sums", () => {
  it("fall on the Beijing day a call was received: 23:59:59.999 and 00:00:00.000 are two days", async () => {
    const { user, key } = await funded();
    const now = t.clock.now();
    try {
      t.clock.set("2026-03-01T15:59:59.999Z");
      expect((await call(key.secret, "echo", { payload: "{}" })).statusCode).toBe(200);
      t.clock.set("2026-03-01T16:00:00.000Z");
      expect((await call(key.secret, "echo", { payload: "{}" })).statusCode).toBe(200);
    } finally {
      t.clock.set(now);
    }
    await t.app.callLog.drain();
    const days = (await daySums(t.database.db, user.userId)).map((sum) => [sum.day, sum.calls]);
    expect(days).toEqual([
      ["2026-03-01", 1],
      ["2026-03-02", 1],
    ]);
    // The same days once the sweep has moved the rows into the kept sums.
    await sweepOldCalls(t.database.db, new Date("2026-12-31T00:00:00Z"), { retentionDays: 1, batchRows: 1000, maxBatches: 100 });
    expect((await daySums(t.database.db, user.userId)).map((sum) => [sum.day, sum.calls])).toEqual(days);
    const kept = await t.database.db.select().from(callLogDaily).where(eq(callLogDaily.userId, user.userId)).orderBy(callLogDaily.day);
    expect(kept.map((sum) => [sum.day, sum.calls])).toEqual(days);
  });
});

describe("a refused call", () => {
  it("leaves one row per call with the code the caller got, and costs nothing", async () => {
    const { user, key } = await funded("1");
    const poor = await funded("0");
    const limitedKey = await newKey(user, { spendLimit: "0.01" });
    const echoOnly = await newKey(user, { allowedTools: ["echo"] });
    const elsewhere = await newKey(user, { ipAllowlist: ["10.1.2.3"] });
    const disabled = await newKey(user);
    await t.database.db.update(apiKeys).set({ disabledAt: new Date("2026-02-01T00:00:00Z") }).where(eq(apiKeys.id, disabled.id));
    const expired = await newKey(user);
    await t.database.db.update(apiKeys).set({ expiresAt: new Date("2026-02-01T00:00:00Z") }).where(eq(apiKeys.id, expired.id));

    const made: [string, Promise<{ statusCode: number; headers: Record<string, unknown> }>][] = [];
    const expectCall = async (outcome: string, status: number, response: Promise<{ statusCode: number; headers: Record<string, unknown> }>) => {
      const res = await response;
      expect(res.statusCode, outcome).toBe(status);
      made.push([outcome, response]);
    };
    await expectCall("served", 200, call(key.secret, "limited"));
    await expectCall("rate_limited", 429, call(key.secret, "limited"));
    await expectCall("served", 200, call(limitedKey.secret, "echo"));
    await expectCall("spend_limit_reached", 402, call(limitedKey.secret, "echo"));
    await expectCall("insufficient_balance", 402, call(poor.key.secret, "echo"));
    await expectCall("tool_not_approved", 403, call(key.secret, "pinyin"));
    await expectCall("tool_not_allowed", 403, call(echoOnly.secret, "weather"));
    await expectCall("ip_not_allowed", 403, call(elsewhere.secret, "echo"));
    await expectCall("key_disabled", 401, call(disabled.secret, "echo"));
    await expectCall("key_expired", 401, call(expired.secret, "echo"));
    await expectCall("bad_request", 400, call(key.secret, "echo", { method: "TRACE", payload: "" }));
    await expectCall("body_too_large", 413, call(key.secret, "tiny", { payload: '{"far":"too long for ten bytes"}' }));
    await expectCall("unknown_tool", 404, call(key.secret, "no-such-tool"));

    for (const [outcome, response] of made) {
      const res = await response;
      const row = await rowFor(res.headers["x-request-id"] as string);
      if (outcome === "served") {
        expect(row).toMatchObject({ outcome, amount: 10_000n });
        continue;
      }
      const payer = outcome === "insufficient_balance" ? poor.user : user;
      // A built-in tool runs before it is charged: refused at its charge, its answer was dropped.
      const ranFirst = outcome === "insufficient_balance" || outcome === "spend_limit_reached";
      expect(row, outcome).toMatchObject({ outcome, httpStatus: res.statusCode, amount: 0n, units: 0, upstreamStatus: ranFirst ? 200 : null, userId: payer.userId });
      expect(row.errorCode, outcome).toBe(outcome.startsWith("key_") ? "invalid_key" : outcome);
      expect(row.errorMessage, outcome).toBeTruthy();
    }
    expect(await rowsOf(user.userId)).toHaveLength(made.length - 1);
    expect(await rowsOf(poor.user.userId)).toHaveLength(1);
    const [balance] = await t.database.db.select({ balance: users.balance }).from(users).where(eq(users.id, user.userId));
    expect(balance!.balance).toBe(980_000n);
  });

  it("an account disabled by the operator is its own code; a call with no key, or a key nobody has, leaves no row", async () => {
    const { user, key } = await funded();
    await t.database.db.update(users).set({ disabledAt: new Date("2026-02-01T00:00:00Z") }).where(eq(users.id, user.userId));
    const refused = await call(key.secret, "echo");
    expect(refused.statusCode).toBe(403);
    expect(await rowFor(refused.headers["x-request-id"] as string)).toMatchObject({ outcome: "account_disabled", errorCode: "account_disabled", amount: 0n });

    const anonymous = [await call(null, "echo"), await call("tg_live_nobody_has_this_key_0000000000000000", "echo"), await call(null, "no-such-tool")];
    // A later call's row is written after theirs would have been: the queue is first in, first out.
    const { key: other } = await funded();
    await rowFor((await call(other.secret, "no-such-tool")).headers["x-request-id"] as string);
    for (const res of anonymous) {
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(await t.database.db.select().from(callLog).where(eq(callLog.requestId, res.headers["x-request-id"] as string))).toEqual([]);
    }
  });
});

describe("text the database cannot hold", () => {
  it("is made storable: a NUL in the tool id a caller names loses neither its row nor the others of its batch", async () => {
    const { user, key } = await funded();
    const odd = await t.app.inject({ method: "POST", url: "/v1/tools/a%00b", payload: {}, headers: { authorization: `Bearer ${key.secret}` } });
    expect(odd.statusCode).toBe(404);
    const served = await call(key.secret, "echo");
    await rowFor(odd.headers["x-request-id"] as string);
    // A refused call's row is written once its key is looked up, which may be after the next call's.
    const rows = (await rowsOf(user.userId)).map((row) => [row.requestId, row.toolId, row.outcome]);
    expect(rows.sort((a, b) => String(a[2]).localeCompare(String(b[2])))).toEqual([
      [served.headers["x-request-id"], "echo", "served"],
      [odd.headers["x-request-id"], "a\uFFFDb", "unknown_tool"],
    ]);
  });
});

describe("a call the tool failed", () => {
  it("is refunded in full: upstream_failed with the upstream's status; its body is kept for operators, cut to 2 KB", async () => {
    const { user, key } = await funded();
    const res = await call(key.secret, "broken");
    expect(res.statusCode).toBe(502);
    expect(res.body).not.toContain("database down");
    const [row] = await rowsOf(user.userId);
    expect(row).toMatchObject({ outcome: "upstream_failed", httpStatus: 502, upstreamStatus: 500, held: 10_000n, amount: 0n, errorCode: "upstream_failed" });
    expect(row!.upstreamErrorExcerpt).toBe(UPSTREAM_FAILURE.slice(0, 2048));
  });

  it("that never answered is upstream_failed with no upstream status; one that answered too late is upstream_timeout", async () => {
    const { user, key } = await funded();
    expect((await call(key.secret, "hangup")).statusCode).toBe(502);
    expect((await call(key.secret, "slow")).statusCode).toBe(504);
    expect(await rowsOf(user.userId)).toMatchObject([
      { outcome: "upstream_failed", upstreamStatus: null, amount: 0n, held: 10_000n },
      { outcome: "upstream_timeout", httpStatus: 504, upstreamStatus: null, amount: 0n, errorCode: "upstream_timeout" },
    ]);
  });

  it("answered with a client error is passed on and not charged: tool_rejected, with no error of the gateway's", async () => {
    const { user, key } = await funded();
    const res = await call(key.secret, "picky");
    expect(res.statusCode).toBe(400);
    expect(await rowsOf(user.userId)).toMatchObject([{ outcome: "tool_rejected", httpStatus: 400, upstreamStatus: 400, amount: 0n, errorCode: null, bytesOut: res.rawPayload.length }]);
  });
});

describe("a streamed call's row", () => {
  function stream(secret: string, toolId: string) {
    const req = http.request(`${gatewayBase}/v1/tools/${toolId}`, { method: "POST", headers: { authorization: `Bearer ${secret}`, "content-length": "0" } });
    req.end();
    return { req, response: once(req, "response").then(([res]) => res as http.IncomingMessage) };
  }

  it("is written when the stream ends, with what it cost and the bytes it relayed", async () => {
    const { key } = await funded();
    const res = await stream(key.secret, "stream").response;
    await once(res, "data");
    open("/stream");
    let bytes = 0;
    res.on("data", (chunk: Buffer) => (bytes += chunk.length));
    await once(res, "end");
    const row = await rowFor(res.headers["x-request-id"] as string);
    expect(row).toMatchObject({ outcome: "served", streamed: true, httpStatus: 200, upstreamStatus: 200, amount: 10_000n, bytesOut: bytes + '{"n":1}'.length + 8 });
  });

  it("says stream_cut when the tool broke it, and caller_left when the caller hung up", async () => {
    const { key } = await funded();
    const cut = await stream(key.secret, "cut").response;
    await once(cut, "data");
    cut.on("error", () => undefined);
    const closed = new Promise((resolve) => cut.once("close", resolve));
    open("/cut");
    await closed;
    expect(await rowFor(cut.headers["x-request-id"] as string)).toMatchObject({ outcome: "stream_cut", streamed: true, amount: 0n, held: 10_000n });

    const { req, response } = stream(key.secret, "stream");
    const left = await response;
    await once(left, "data");
    left.on("error", () => undefined);
    const gone = new Promise((resolve) => left.once("close", resolve));
    req.destroy();
    await gone;
    open("/stream");
    expect(await rowFor(left.headers["x-request-id"] as string)).toMatchObject({ outcome: "caller_left", streamed: true, amount: 10_000n });
  });
});

describe("a retry with an Idempotency-Key", () => {
  it("answered from the first call is a row of its own: replayed, free", async () => {
    const { user, key } = await funded();
    const headers = { "idempotency-key": "call-log-replay-1" };
    const first = await call(key.secret, "echo", { headers });
    const again = await call(key.secret, "echo", { headers });
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(await rowsOf(user.userId)).toMatchObject([
      { requestId: first.headers["x-request-id"], outcome: "served", amount: 10_000n },
      { requestId: again.headers["x-request-id"], outcome: "replayed", amount: 0n, httpStatus: 200 },
    ]);
  });
});

describe("the queue", () => {
  it("is written out when the app closes: a call answered just before shutdown keeps its row", async () => {
    const { user, key } = await funded();
    const second = await createTestApp({ TOOLS_CATALOG: t.config.toolsCatalog }, { database: t.database, clock: t.clock });
    const served = await second.app.inject({ method: "POST", url: "/v1/tools/echo", payload: { bye: 1 }, headers: { authorization: `Bearer ${key.secret}` } });
    const refused = await second.app.inject({ method: "POST", url: "/v1/tools/no-such-tool", payload: {}, headers: { authorization: `Bearer ${key.secret}` } });
    await second.close();
    const rows = await t.database.db.select().from(callLog).where(eq(callLog.userId, user.userId)).orderBy(callLog.id);
    expect(rows.map((row) => [row.requestId, row.outcome])).toEqual([
      [served.headers["x-request-id"], "served"],
      [refused.headers["x-request-id"], "unknown_tool"],
    ]);
  });

  it("when full drops rows and counts them in tollgate_call_log_rows_dropped_total; the gateway's callers never wait for it", async () => {
    const { user, key } = await funded();
    const [found] = await t.database.db.select().from(apiKeys).where(eq(apiKeys.id, key.id));
    const [owner] = await t.database.db.select().from(users).where(eq(users.id, user.userId));
    const metrics = new PrometheusMetrics({});
    const writer = new CallLogWriter(t.database.db, {
      capacity: 2,
      maxBatch: 500,
      flushAfterMs: 60_000,
      onDropped: (reason, rows) => metrics.callLogRowsDropped(reason, rows),
      onWriteFailed: (error) => {
        throw error;
      },
    });
    const ids = ["full-1", "full-2", "full-3", "full-4", "full-5"].map((id) => `${id}-${key.id}`);
    for (const id of ids) {
      const trace = new CallTrace(id, "echo", "127.0.0.1", t.clock.now(), performance.now());
      trace.identified({ key: found!, user: owner! });
      trace.httpStatus = 402;
      trace.ended();
      writer.push(trace);
    }
    await writer.drain();
    expect((await rowsOf(user.userId)).map((row) => row.requestId)).toEqual(ids.slice(0, 2));
    expect(await metrics.registry.metrics()).toMatch(/^tollgate_call_log_rows_dropped_total\{reason="queue_full"\} 3$/m);
  });

  it("holds a call once, though it is ended twice: its batch, the other calls' rows included, is written", async () => {
    const { user, key } = await funded();
    const [found] = await t.database.db.select().from(apiKeys).where(eq(apiKeys.id, key.id));
    const [owner] = await t.database.db.select().from(users).where(eq(users.id, user.userId));
    const failures: unknown[] = [];
    const writer = new CallLogWriter(t.database.db, {
      capacity: 100,
      maxBatch: 500,
      flushAfterMs: 60_000,
      onDropped: () => {},
      onWriteFailed: (error) => failures.push(error),
    });
    const traces = ["twice-1", "twice-2"].map((id) => {
      const trace = new CallTrace(`${id}-${key.id}`, "echo", "127.0.0.1", t.clock.now(), performance.now());
      trace.identified({ key: found!, user: owner! });
      trace.httpStatus = 200;
      trace.ended();
      return trace;
    });
    writer.push(traces[0]!);
    // An answer that failed after it was recorded is ended again, as upstream_failed.
    traces[0]!.outcome = "upstream_failed";
    writer.push(traces[0]!);
    writer.push(traces[1]!);
    await writer.drain();
    expect(failures).toEqual([]);
    expect((await rowsOf(user.userId)).map((row) => [row.requestId, row.outcome]).sort()).toEqual([
      [traces[0]!.requestId, "upstream_failed"],
      [traces[1]!.requestId, "served"],
    ]);
  });
});
