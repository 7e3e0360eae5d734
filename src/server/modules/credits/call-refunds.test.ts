import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { beijingIso } from "#shared/beijing-time";
import { parseMoney } from "#shared/money";
import type { CreditRow } from "#shared/money-api";
import { ledgerEntries, users } from "../../db/schema/index";
import { adminCli } from "../../testing/admin-cli";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { createUserWithSession, type TestUser } from "../../testing/users";

/**
 * An operator's refund of a call (`admin calls refund`) as the user reads it: a "call refund" line
 * on charge details and in its CSV, with the amount, the time and the operator's reason and the
 * call's request id; the gateway's own refunds (a failed call's hold) are not such a line; and the
 * two statements still add up to the balance: the refunded call stays billed at what it cost.
 */
let t: TestApp;
let upstream: http.Server;
let user: TestUser;
let refunded: string;
let kept: string;
let failed: string;
let refundedAt: Date;

async function call(secret: string, toolId: string) {
  const res = await t.app.inject({ method: "POST", url: `/v1/tools/${toolId}`, payload: { a: 1 }, headers: { authorization: `Bearer ${secret}` } });
  await t.app.callLog.drain();
  return { status: res.statusCode, requestId: res.headers["x-request-id"] as string };
}

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(502, { "content-type": "text/plain" }).end("down"));
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const catalog = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "call-refunds-")), "tools.json");
  const tool = (id: string, handler: object) => ({ id, name: id, description: id, category: "test", price: "0.25", handler });
  fs.writeFileSync(
    catalog,
    JSON.stringify({
      tools: [tool("echo", { type: "builtin", name: "echo" }), tool("broken", { type: "http", url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/` })],
    }),
  );
  t = await createTestApp({ TOOLS_CATALOG: catalog });
  user = await createUserWithSession(t, { balance: "2" });
  const key = await t.app.inject({ method: "POST", url: "/api/v1/console/keys", headers: user.headers, payload: { name: "refunds" } });
  const secret = key.json().secret as string;
  const calls = [await call(secret, "echo"), await call(secret, "echo"), await call(secret, "broken")];
  expect(calls.map((c) => c.status)).toEqual([200, 200, 502]);
  [refunded, kept, failed] = calls.map((c) => c.requestId) as [string, string, string];
  t.clock.advance(3600_000);
  refundedAt = t.clock.now();
  const done = await adminCli(t)("calls", "refund", refunded, "--reason", "wrong answer, ticket 12");
  expect(done.code).toBe(0);
});
afterAll(async () => {
  await t.close();
  upstream.close();
});

const get = (url: string) => t.app.inject({ method: "GET", url, headers: user.headers });

describe("an operator's refund of a call, on charge details", () => {
  it("is its own line with the amount, the refund's time, the reason and the call's request id", async () => {
    const res = await get("/api/v1/console/credits?limit=100");
    expect(res.statusCode).toBe(200);
    const refunds = (res.json().items as CreditRow[]).filter((r) => r.method === "call_refund");
    expect(refunds).toEqual([
      { id: expect.any(String), time: refundedAt.toISOString(), method: "call_refund", amount: "0.25", status: "succeeded", reference: `wrong answer, ticket 12 (call ${refunded})` },
    ]);
  });

  it("leaves out the gateway's refund of a failed call, which is in the ledger too", async () => {
    const [gatewayRefund] = await t.database.db
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.userId, user.userId), eq(ledgerEntries.idempotencyKey, `refund:${failed}`)));
    expect(gatewayRefund).toMatchObject({ kind: "refund", amount: 250_000n });
    const items = (await get("/api/v1/console/credits?limit=100")).json().items as CreditRow[];
    expect(items.map((r) => [r.method, r.amount])).toEqual([
      ["call_refund", "0.25"],
      ["operator", "2.00"],
    ]);
    expect(items.some((r) => r.reference.includes(failed) || r.reference.includes(kept))).toBe(false);
  });

  it("counts in the total, and the refunded call stays billed at what it cost: the statements add up to the balance", async () => {
    const credits = (await get("/api/v1/console/credits")).json();
    const billing = (await get("/api/v1/console/billing?limit=100")).json();
    expect(credits.total).toBe("2.25");
    expect(billing.total).toEqual({ calls: 2, purchases: 0, amount: "0.50" });
    expect((billing.items as { requestId: string; amount: string }[]).map((r) => [r.requestId, r.amount])).toEqual([
      [kept, "0.25"],
      [refunded, "0.25"],
    ]);
    const [row] = await t.database.db.select({ balance: users.balance }).from(users).where(eq(users.id, user.userId));
    expect(parseMoney(credits.total) - parseMoney(billing.total.amount)).toBe(row!.balance);
    expect(row!.balance).toBe(1_750_000n);
  });

  it("is a row of the CSV", async () => {
    const res = await get("/api/v1/console/credits.csv");
    expect(res.statusCode).toBe(200);
    expect(res.body.split("\r\n")).toContain(`${beijingIso(refundedAt.toISOString())},call_refund,0.25,succeeded,"wrong answer, ticket 12 (call ${refunded})"`);
  });
});
