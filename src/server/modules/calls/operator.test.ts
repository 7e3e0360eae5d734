import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { eq, lt } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeys, callLog, callLogDaily } from "../../db/schema/index";
import { adminCli } from "../../testing/admin-cli";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { createUserWithSession, type TestUser } from "../../testing/users";
import { createSession } from "../auth/sessions";
import { daySums, sweepOldCalls } from "./index";

/**
 * What operators get of the call log: `admin calls show` for any call, refused or failed too, with
 * the start of a failed upstream's body escaped as the CLI escapes what others wrote; and the
 * retention sweep, on the injected clock, that keeps the daily sums.
 */
let t: TestApp;
let upstream: http.Server;
/** An upstream failure whose body would move a terminal's cursor and is longer than the 2 KB kept. */
const UPSTREAM_BODY = `line one\n\u001b[2Jcleared?\u202eevil ${"y".repeat(3000)}`;

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(502, { "content-type": "text/plain" }).end(UPSTREAM_BODY));
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const catalog = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "calls-op-")), "tools.json");
  const tool = (id: string, handler: object) => ({ id, name: id, description: id, category: "test", price: "0.01", handler });
  fs.writeFileSync(
    catalog,
    JSON.stringify({
      tools: [tool("echo", { type: "builtin", name: "echo" }), tool("broken", { type: "http", url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/` })],
    }),
  );
  t = await createTestApp({ TOOLS_CATALOG: catalog, CALL_LOG_RETENTION_DAYS: "30" });
});
afterAll(async () => {
  await t.close();
  upstream.close();
});

const cli = (...argv: string[]) => adminCli(t)(...argv);

async function newKey(user: TestUser) {
  const res = await t.app.inject({ method: "POST", url: "/api/v1/console/keys", headers: user.headers, payload: { name: "ops" } });
  return { id: res.json().key.id as number, secret: res.json().secret as string };
}

async function call(secret: string, toolId: string) {
  const res = await t.app.inject({ method: "POST", url: `/v1/tools/${toolId}`, payload: { a: 1 }, headers: { authorization: `Bearer ${secret}` } });
  await t.app.callLog.drain();
  return { status: res.statusCode, requestId: res.headers["x-request-id"] as string };
}

describe("tollgate admin calls show", () => {
  it("shows a failed call's upstream status and the first 2 KB of its body, escaped, with the ledger's hold and refund", async () => {
    const user = await createUserWithSession(t, { balance: "1" });
    const key = await newKey(user);
    const { status, requestId } = await call(key.secret, "broken");
    expect(status).toBe(502);
    const shown = await cli("calls", "show", requestId);
    expect(shown.code).toBe(0);
    expect(shown.out).toMatch(/^outcome +upstream_failed \(HTTP 502\)$/m);
    expect(shown.out).toMatch(/^upstream +HTTP 502$/m);
    expect(shown.out).toMatch(/^status +refunded \(HTTP 502\)$/m);
    const bodyLine = shown.out.split("\n").find((line) => line.startsWith("upstream body"))!;
    expect(bodyLine).toContain("line one\\n\\x1b[2Jcleared?\\u202eevil yyy");
    expect(bodyLine.includes("\u001b") || bodyLine.includes("\u202e")).toBe(false);
    const document = JSON.parse((await cli("calls", "show", requestId, "--json")).out);
    expect(document.log).toMatchObject({ outcome: "upstream_failed", upstreamStatus: 502, held: "0.01", amount: "0.00", clientIp: "127.0.0.1" });
    expect(document.log.upstreamErrorExcerpt).toBe(Buffer.from(UPSTREAM_BODY).subarray(0, 2048).toString("utf8"));
    expect(document.ledger.map((e: { kind: string }) => e.kind)).toEqual(["charge", "refund"]);
  });

  it("shows a call refused before it was charged, from its call log row alone", async () => {
    const user = await createUserWithSession(t, { balance: "1" });
    const key = await newKey(user);
    await t.database.db.update(apiKeys).set({ disabledAt: new Date("2026-02-01T00:00:00Z") }).where(eq(apiKeys.id, key.id));
    const { status, requestId } = await call(key.secret, "echo");
    expect(status).toBe(401);
    const shown = await cli("calls", "show", requestId);
    expect(shown.code).toBe(0);
    expect(shown.out).toMatch(/^status +not charged$/m);
    expect(shown.out).toMatch(/^outcome +key_disabled \(HTTP 401\)$/m);
    expect(shown.out).toMatch(/^error +invalid_key: the API key is missing, unknown, disabled or expired$/m);
    expect(shown.out).toMatch(/^upstream +never reached: the gateway refused the call \(invalid_key\) before the tool was called$/m);
    expect(shown.out).toMatch(new RegExp(`^user +${user.userId}$`, "m"));
    expect(await cli("calls", "show", "no-such-request")).toMatchObject({
      code: 1,
      err: 'no call has request id "no-such-request" (the call log keeps calls 30 days; calls with no valid key are not kept)',
    });
  });

  it("refuses an id longer than any request id (a UUID's 36 characters) as such, without repeating it, for show and refund", async () => {
    const long = "r".repeat(300);
    for (const argv of [["calls", "show", long], ["calls", "refund", long, "--reason", "ticket 12"], ["calls", "show", `${"0".repeat(36)}0`]]) {
      const run = await cli(...argv);
      expect(run, argv.join(" ")).toMatchObject({ code: 64, out: "" });
      expect(run.err.split("\n")[0]).toBe("the request id given is longer than any request id (a UUID, 36 characters): give the x-request-id a call was answered with");
      expect(run.err).not.toContain("r".repeat(37));
    }
  });
});

describe("an operator's refund of a call", () => {
  it("shows in the user's call detail: what it gave back, when and why; a call not refunded shows none", async () => {
    const user = await createUserWithSession(t, { balance: "1" });
    const key = await newKey(user);
    const { status, requestId } = await call(key.secret, "echo");
    expect(status).toBe(200);
    const { requestId: kept } = await call(key.secret, "echo");
    expect((await cli("calls", "refund", requestId, "--reason", "ticket 12")).code).toBe(0);
    const detail = (await t.app.inject({ url: `/api/v1/console/calls/${requestId}`, headers: user.headers })).json();
    expect(detail).toMatchObject({ amount: "0.01", operatorRefund: { amount: "0.01", time: expect.any(String), reference: `ticket 12 (call ${requestId})` } });
    expect(Date.parse(detail.operatorRefund.time)).toBe(t.clock.now().getTime());
    expect((await t.app.inject({ url: `/api/v1/console/calls/${kept}`, headers: user.headers })).json().operatorRefund).toBeNull();
  });
});

describe("the retention sweep", () => {
  it("deletes rows older than CALL_LOG_RETENTION_DAYS in bounded batches and keeps the daily sums; the API refuses ranges before them", async () => {
    const user = await createUserWithSession(t, { balance: "1" });
    const key = await newKey(user);
    const start = new Date("2026-03-01T08:00:00Z");
    const made: string[] = [];
    for (const daysLater of [0, 0, 0, 10, 31]) {
      t.clock.set(new Date(start.getTime() + daysLater * 86_400_000));
      made.push((await call(key.secret, "echo")).requestId);
    }
    await t.app.callLog.drain();
    const sumsBefore = await daySums(t.database.db, user.userId);
    expect(sumsBefore.map((sum) => [sum.day, sum.calls, sum.amount])).toEqual([
      ["2026-03-01", 3, 30_000n],
      ["2026-03-11", 1, 10_000n],
      ["2026-04-01", 1, 10_000n],
    ]);

    // 30 days after the third day's call, the first day's three go, two at a time; the 10th day's stays.
    t.clock.set(new Date(start.getTime() + 31 * 86_400_000));
    const cutoff = new Date(start.getTime() + 86_400_000);
    const old = (await t.database.db.select({ id: callLog.id }).from(callLog).where(lt(callLog.receivedAt, cutoff))).length;
    expect(old).toBeGreaterThanOrEqual(3);
    expect(await sweepOldCalls(t.database.db, t.clock.now(), { retentionDays: 30, batchRows: 2, maxBatches: 1 })).toBe(2);
    expect(await sweepOldCalls(t.database.db, t.clock.now(), { retentionDays: 30, batchRows: 2, maxBatches: 5 })).toBe(old - 2);
    expect(await sweepOldCalls(t.database.db, t.clock.now(), { retentionDays: 30, batchRows: 2, maxBatches: 5 })).toBe(0);
    const kept = await t.database.db.select({ requestId: callLog.requestId }).from(callLog).where(eq(callLog.userId, user.userId)).orderBy(callLog.receivedAt);
    expect(kept.map((row) => row.requestId)).toEqual(made.slice(3));
    expect(await daySums(t.database.db, user.userId)).toEqual(sumsBefore);
    // The deleted rows live on in their day's sums, once each.
    const moved = await t.database.db.select().from(callLogDaily).where(eq(callLogDaily.userId, user.userId));
    expect(moved.map((sum) => [sum.day, sum.calls, sum.amount])).toEqual([["2026-03-01", 3, 30_000n]]);

    // A month on, the user signs in again.
    const { token } = await createSession(t.database.db, { userId: user.userId, now: t.clock.now() });
    const headers = { authorization: `Bearer ${token}` };
    const refused = await t.app.inject({ url: "/api/v1/console/calls?from=2026-03-01T00:00:00Z", headers });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toBe("calls are kept 30 days: start the range at 2026-03-02 16:00:00 +08:00 or later");
    const page = await t.app.inject({ url: "/api/v1/console/calls?from=2026-03-02T08:00:00Z", headers });
    expect(page.json()).toMatchObject({ retentionDays: 30 });
    expect(page.json().items.map((item: { requestId: string }) => item.requestId)).toEqual([made[4], made[3]]);
  });
});
