import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callLog } from "../../db/schema/index";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { createUserWithSession, type TestUser } from "../../testing/users";

/**
 * The console's call log API as a signed-in user reads it: filters, keyset pages that hold still
 * while calls are written, the exact request-id lookup, a call's detail and the CSV export.
 */
let t: TestApp;
let upstream: http.Server;
const UPSTREAM_SECRET_BODY = "stack trace with the upstream's internal host db-7.internal";

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(503, { "content-type": "text/plain" }).end(UPSTREAM_SECRET_BODY));
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const catalog = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "calls-read-")), "tools.json");
  const tool = (id: string, handler: object) => ({ id, name: id, description: id, category: "test", price: "0.01", handler });
  fs.writeFileSync(
    catalog,
    JSON.stringify({
      tools: [
        tool("echo", { type: "builtin", name: "echo" }),
        tool("qrcode", { type: "builtin", name: "qrcode" }),
        tool("broken", { type: "http", url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/` }),
      ],
    }),
  );
  t = await createTestApp({ TOOLS_CATALOG: catalog });
});
afterAll(async () => {
  await t.close();
  upstream.close();
});

async function newKey(user: TestUser, name = "main") {
  const res = await t.app.inject({ method: "POST", url: "/api/v1/console/keys", headers: user.headers, payload: { name } });
  expect(res.statusCode).toBe(201);
  return { id: res.json().key.id as number, secret: res.json().secret as string };
}

const call = async (secret: string, toolId: string, payload: object = { hi: 1 }) => {
  const res = await t.app.inject({ method: "POST", url: `/v1/tools/${toolId}`, payload, headers: { authorization: `Bearer ${secret}` } });
  await t.app.callLog.drain();
  return res;
};
const calls = (user: TestUser, query = "") => t.app.inject({ url: `/api/v1/console/calls${query}`, headers: user.headers });
const ids = (res: { json(): { items: { requestId: string }[] } }) => res.json().items.map((item) => item.requestId);

/** Rows as the writer would leave them, for lists larger than calls a test can make one by one. */
function fixtureRows(user: { userId: number }, keyId: number, count: number, options: { from: Date; stepMs: number; prefix: string; totalUs?: (i: number) => number }) {
  return Array.from({ length: count }, (_, i): typeof callLog.$inferInsert => ({
    requestId: `${options.prefix}-${i}`,
    receivedAt: new Date(options.from.getTime() + i * options.stepMs),
    userId: user.userId,
    apiKeyId: keyId,
    toolId: "echo",
    outcome: "served",
    httpStatus: 200,
    upstreamStatus: 200,
    held: 10_000n,
    amount: 10_000n,
    units: 1,
    streamed: false,
    bytesIn: 10,
    bytesOut: 10,
    clientIp: "203.0.113.77",
    totalUs: options.totalUs?.(i) ?? 1500,
  }));
}

async function insertRows(rows: (typeof callLog.$inferInsert)[]) {
  for (let i = 0; i < rows.length; i += 1000) await t.database.db.insert(callLog).values(rows.slice(i, i + 1000));
}

describe("GET /api/v1/console/calls", () => {
  it("lists refused, failed and served calls alike, newest first, each with its outcome and why it cost nothing", async () => {
    const user = await createUserWithSession(t, { balance: "0.01" });
    const key = await newKey(user);
    const broke = await call(key.secret, "broken");
    t.clock.advance(1000);
    const served = await call(key.secret, "echo");
    t.clock.advance(1000);
    const poor = await call(key.secret, "qrcode", { text: "x" });
    expect([broke.statusCode, served.statusCode, poor.statusCode]).toEqual([502, 200, 402]);
    const page = (await calls(user)).json();
    expect(page.retentionDays).toBe(90);
    expect(page.items).toMatchObject([
      { requestId: poor.headers["x-request-id"], outcome: "insufficient_balance", httpStatus: 402, amount: "0.00", notChargedReason: "not charged: refused (insufficient_balance, HTTP 402)" },
      { requestId: served.headers["x-request-id"], outcome: "served", httpStatus: 200, amount: "0.01", notChargedReason: null, keyName: "main", clientNetwork: "127.0.0.0/24" },
      { requestId: broke.headers["x-request-id"], outcome: "upstream_failed", httpStatus: 502, upstreamStatus: 503, amount: "0.00", notChargedReason: "not charged: upstream 503" },
    ]);
    for (const item of page.items) expect(item.ownMs).toBeCloseTo(item.totalMs - (item.upstreamMs ?? 0), 2);
    expect(JSON.stringify(page)).not.toContain("db-7.internal");
    expect((await t.app.inject({ url: "/api/v1/console/calls" })).statusCode).toBe(401);
  });

  it("filters by time, tool, key, outcome, status class, charged or not, and slower than N ms; another user's calls never show", async () => {
    const user = await createUserWithSession(t);
    const [first, second] = [await newKey(user, "first"), await newKey(user, "second")];
    const from = new Date("2026-02-27T00:00:00Z");
    const rows = [
      ...fixtureRows(user, first.id, 4, { from, stepMs: 3_600_000, prefix: `f-${user.userId}`, totalUs: (i) => (i + 1) * 100_000 }),
      ...fixtureRows(user, second.id, 2, { from: new Date("2026-02-28T00:00:00Z"), stepMs: 60_000, prefix: `s-${user.userId}` }).map((row) => ({
        ...row,
        toolId: "qrcode",
        outcome: "rate_limited",
        httpStatus: 429,
        upstreamStatus: null,
        held: 0n,
        amount: 0n,
        units: 0,
      })),
    ];
    rows[3] = { ...rows[3]!, outcome: "upstream_failed", httpStatus: 502, upstreamStatus: 500, amount: 0n };
    await insertRows(rows);
    const other = await createUserWithSession(t);
    await insertRows(fixtureRows(other, (await newKey(other)).id, 3, { from, stepMs: 1000, prefix: `o-${other.userId}` }));

    const expectIds = async (query: string, expected: string[]) => expect(ids(await calls(user, query)), query).toEqual(expected);
    const f = (i: number) => `f-${user.userId}-${i}`;
    const s = (i: number) => `s-${user.userId}-${i}`;
    await expectIds("", [s(1), s(0), f(3), f(2), f(1), f(0)]);
    await expectIds("?from=2026-02-27T01:00:00Z&to=2026-02-27T03:00:00Z", [f(2), f(1)]);
    await expectIds("?toolId=qrcode", [s(1), s(0)]);
    await expectIds(`?keyId=${first.id}`, [f(3), f(2), f(1), f(0)]);
    await expectIds("?outcome=upstream_failed", [f(3)]);
    await expectIds("?status=4xx", [s(1), s(0)]);
    await expectIds("?status=5xx", [f(3)]);
    await expectIds("?status=2xx", [f(2), f(1), f(0)]);
    await expectIds("?charged=true", [f(2), f(1), f(0)]);
    await expectIds("?charged=false", [s(1), s(0), f(3)]);
    await expectIds("?slowerThanMs=250", [f(3), f(2)]);
    await expectIds("?charged=true&slowerThanMs=150&keyId=" + first.id, [f(2), f(1)]);
    expect((await calls(user, "?outcome=made_up")).statusCode).toBe(400);
    expect((await calls(user, "?status=3xx")).statusCode).toBe(400);
  });

  it("refuses a range that starts before the oldest kept call, saying how long calls are kept", async () => {
    t.clock.set("2026-03-01T08:00:00Z");
    const user = await createUserWithSession(t);
    const res = await calls(user, "?from=2025-11-30T00:00:00Z");
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe("calls are kept 90 days: start the range at 2025-12-01 16:00:00 +08:00 or later");
    expect((await calls(user, "?from=2025-12-01T08:00:00Z")).statusCode).toBe(200);
    expect((await calls(user, "?to=2025-11-30T00:00:00Z")).json().message).toBe("calls are kept 90 days: start the range at 2025-12-01 16:00:00 +08:00 or later");
    expect((await t.app.inject({ url: "/api/v1/console/calls.csv?from=2025-11-30T00:00:00Z", headers: user.headers })).statusCode).toBe(400);
    // A plain date is not a time: the message shows one to copy.
    expect((await calls(user, "?from=2026-02-28")).json()).toEqual({ code: "validation_failed", message: "from: must be a date-time such as 2026-11-30T00:00:00+08:00" });
  });

  it("refuses a parameter it does not take, naming it, rather than list every call as if the filter applied", async () => {
    const user = await createUserWithSession(t, { balance: "1" });
    const key = await newKey(user);
    const echo = await call(key.secret, "echo");
    await call(key.secret, "qrcode", { text: "hi" });
    // The page's own address says tool=; the API's name is toolId.
    const typo = await calls(user, "?tool=echo");
    expect([typo.statusCode, typo.json()]).toEqual([400, { code: "validation_failed", message: "the query string does not take the parameter tool" }]);
    expect((await calls(user, "?toolId=echo&_=1700000000000&slower=5")).json().message).toBe("the query string does not take the parameters _, slower");
    const csv = await t.app.inject({ url: "/api/v1/console/calls.csv?toolId=echo&cursor=abc", headers: user.headers });
    expect([csv.statusCode, csv.json()]).toEqual([400, { code: "validation_failed", message: "the query string does not take the parameter cursor" }]);
    expect(ids(await calls(user, "?toolId=echo&limit=5"))).toEqual([echo.headers["x-request-id"]]);
    const filteredCsv = await t.app.inject({ url: "/api/v1/console/calls.csv?toolId=echo", headers: user.headers });
    expect([filteredCsv.statusCode, filteredCsv.body.trim().split("\r\n").length]).toEqual([200, 2]);
  });

  it("pages 10,000 calls stably while calls keep being written: every call once, none twice", async () => {
    const user = await createUserWithSession(t);
    const key = await newKey(user);
    const from = new Date("2026-02-20T00:00:00Z");
    await insertRows(fixtureRows(user, key.id, 10_000, { from, stepMs: 1000, prefix: `p-${user.userId}` }));
    const seen: string[] = [];
    let cursor: string | null = null;
    let page = 0;
    do {
      const res = await calls(user, `?limit=100${cursor ? `&cursor=${cursor}` : ""}`);
      expect(res.statusCode).toBe(200);
      seen.push(...ids(res));
      cursor = res.json().nextCursor;
      // Between pages, calls arrive: newer than any listed, and (a stream ending late) older than the page just read.
      await insertRows([
        ...fixtureRows(user, key.id, 3, { from: new Date("2026-03-01T07:00:00Z"), stepMs: 1, prefix: `new-${page}` }),
        ...fixtureRows(user, key.id, 1, { from: new Date(from.getTime() + (9_999 - page * 100) * 1000 - 500), stepMs: 1, prefix: `late-${page}` }),
        ...fixtureRows(user, key.id, 1, { from: new Date(from.getTime() + (9_999 - (page + 1) * 100 - 50) * 1000 - 500), stepMs: 1, prefix: `ahead-${page}` }),
      ]);
      page += 1;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    const originals = seen.filter((id) => id.startsWith(`p-${user.userId}-`));
    expect(originals).toHaveLength(10_000);
    expect(originals[0]).toBe(`p-${user.userId}-9999`);
    expect(originals.at(-1)).toBe(`p-${user.userId}-0`);
    expect(seen.some((id) => id.startsWith("new-") || id.startsWith("late-"))).toBe(false);
    // Written below the cursor while paging: each shows up once, on a later page.
    expect(seen.filter((id) => id.startsWith("ahead-"))).toHaveLength(page - 1);

    const oldest = await t.app.inject({ url: `/api/v1/console/calls/p-${user.userId}-0`, headers: user.headers });
    expect(oldest.statusCode).toBe(200);
    expect(oldest.json()).toMatchObject({ requestId: `p-${user.userId}-0`, time: from.toISOString(), outcome: "served" });
  }, 120_000);
});

describe("GET /api/v1/console/calls/:requestId", () => {
  it("finds one call by its exact request id with its timeline, hold, refund and the mapped error; never the upstream's body", async () => {
    const user = await createUserWithSession(t, { balance: "1" });
    const key = await newKey(user);
    const broke = await call(key.secret, "broken");
    const requestId = broke.headers["x-request-id"] as string;
    const res = await t.app.inject({ url: `/api/v1/console/calls/${requestId}`, headers: user.headers });
    expect(res.statusCode).toBe(200);
    const detail = res.json();
    expect(detail).toMatchObject({
      requestId,
      outcome: "upstream_failed",
      upstreamStatus: 503,
      held: "0.01",
      amount: "0.00",
      refunded: "0.01",
      error: { code: "upstream_failed", message: broke.json().error.message },
    });
    const steps: string[] = detail.timeline.map((step: { step: string }) => step.step);
    expect([...steps].sort()).toEqual(["ended", "first_byte", "held", "key_checked", "received"]);
    expect([steps[0], steps[1], steps.at(-1)]).toEqual(["received", "key_checked", "ended"]);
    const times = detail.timeline.map((step: { atMs: number }) => step.atMs);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(res.body).not.toContain("db-7.internal");
    // As a user's own tool may print it, upper-case: the same call.
    const upper = await t.app.inject({ url: `/api/v1/console/calls/${requestId.toUpperCase()}`, headers: user.headers });
    expect([upper.statusCode, upper.json().requestId]).toEqual([200, requestId]);

    const stranger = await createUserWithSession(t);
    expect((await t.app.inject({ url: `/api/v1/console/calls/${requestId}`, headers: stranger.headers })).statusCode).toBe(404);
    expect((await t.app.inject({ url: `/api/v1/console/calls/${requestId.slice(0, 8)}`, headers: user.headers })).statusCode).toBe(404);
  });

  it("refuses an id longer than any request id (a UUID's 36 characters) as such, without repeating it", async () => {
    const user = await createUserWithSession(t);
    const unknown = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
    const missing = await t.app.inject({ url: `/api/v1/console/calls/${unknown}`, headers: user.headers });
    expect([missing.statusCode, missing.json().code]).toEqual([404, "not_found"]);
    for (const id of [`${unknown}0`, "r".repeat(100)]) {
      const res = await t.app.inject({ url: `/api/v1/console/calls/${id}`, headers: user.headers });
      expect([res.statusCode, res.json()], `${id.length} characters`).toEqual([
        400,
        { code: "validation_failed", message: "requestId: is longer than any request id (a UUID, 36 characters)" },
      ]);
    }
    // Past the router's 100 characters for a path parameter no route is found: still never repeated.
    const long = await t.app.inject({ url: `/api/v1/console/calls/${"r".repeat(300)}`, headers: user.headers });
    expect(long.statusCode).toBeGreaterThanOrEqual(400);
    expect(long.body).not.toContain("r".repeat(37));
  });
});

describe("GET /api/v1/console/calls.csv", () => {
  it("streams the filtered calls as formula-safe CSV with Beijing times", async () => {
    t.clock.set("2026-03-01T08:00:00Z");
    const user = await createUserWithSession(t, { balance: "1" });
    const key = await newKey(user, "=HYPERLINK(\"http://evil\")");
    const served = await call(key.secret, "echo");
    t.clock.advance(1000);
    const broke = await call(key.secret, "broken");
    const res = await t.app.inject({ url: "/api/v1/console/calls.csv?charged=false", headers: user.headers });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(res.headers["content-disposition"]).toMatch(/^attachment; filename="calls-2026-03-01\.csv"$/);
    const lines = res.body.split("\r\n");
    expect(lines[0]).toBe("time,request_id,tool,key,outcome,http_status,upstream_status,amount,not_charged_reason,units,prepaid_units,streamed,bytes_in,bytes_out,client_network,total_ms,upstream_ms,own_ms");
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe("");
    const requestId = broke.headers["x-request-id"] as string;
    expect(lines[1]).toMatch(
      new RegExp(`^2026-03-01T16:00:01\\+08:00,${requestId},broken,"'=HYPERLINK\\(""http://evil""\\)",upstream_failed,502,503,0\\.00,not charged: upstream 503,0,0,false,\\d+,\\d+,127\\.0\\.0\\.0/24,[\\d.]+,[\\d.]+,[\\d.]+$`),
    );
    expect(res.body).not.toContain(served.headers["x-request-id"]);
  });
});
