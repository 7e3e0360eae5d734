import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseMoney } from "#shared/money";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { createUserWithSession, type TestUser } from "../../testing/users";
import { credit, debit } from "../ledger/ledger";
import { runwayDays } from "./runway";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const DAY = 86_400_000;
const ago = (ms: number) => new Date(t.clock.now().getTime() - ms);
let seq = 0;

async function charge(user: TestUser, amount: string, at: Date, tool = "echo") {
  const id = `req-${++seq}`;
  const posted = await debit(t.database.db, { userId: user.userId, amount: parseMoney(amount), kind: "charge", method: tool, reference: id, idempotencyKey: `usage:${id}`, at });
  expect(posted.ok).toBe(true);
  return id;
}
async function refund(user: TestUser, amount: string, requestId: string, at: Date) {
  await credit(t.database.db, { userId: user.userId, amount: parseMoney(amount), kind: "refund", method: "gateway", reference: requestId, idempotencyKey: `refund:${requestId}`, at });
}
const runway = async (user: TestUser) => {
  const res = await t.app.inject({ method: "GET", url: "/api/v1/console/runway", headers: user.headers });
  expect(res.statusCode).toBe(200);
  return res.json();
};

describe("runway", () => {
  it("says there was no spend when the last 7 days charged nothing (older charges do not count)", async () => {
    const user = await createUserWithSession(t, { balance: "100.00" });
    expect(await runway(user)).toEqual({ balance: "100.00", spendLast7Days: "0.00", averageDailySpend: "0.00", days: null });
    await charge(user, "5.00", ago(7 * DAY + 1000));
    expect((await runway(user)).days).toBeNull();
  });

  it("divides the balance by the 7-day average, charges less refunds, rounded down", async () => {
    const user = await createUserWithSession(t, { balance: "103.50" });
    await charge(user, "3.50", ago(DAY));
    const refunded = await charge(user, "1.00", ago(2 * DAY));
    await refund(user, "0.50", refunded, ago(2 * DAY - 1000));
    await charge(user, "9.00", ago(8 * DAY));
    // Balance 90.50 after 13.50 charged and 0.50 refunded; the window holds 4.50 − 0.50 = 4.00: 90.50 × 7 ÷ 4.00 = 158.375.
    expect(await runway(user)).toEqual({ balance: "90.50", spendLast7Days: "4.00", averageDailySpend: "0.571428", days: 158 });
  });

  it("is exact at the boundary where floating point is not", () => {
    expect(runwayDays(parseMoney("3"), parseMoney("7"))).toBe(3n);
    expect(runwayDays(parseMoney("3"), parseMoney("7.000001"))).toBe(2n);
    // 0.1 + 0.2 style: 0.3 a day for 7 days is 2.1; a balance of 0.9 lasts 3 days, not 2.9999….
    expect(runwayDays(parseMoney("0.9"), parseMoney("2.1"))).toBe(3n);
    // Beyond 2^53 micro-units.
    expect(runwayDays(9_007_199_254_740_993n, 7n)).toBe(9_007_199_254_740_993n);
    expect(runwayDays(0n, 1n)).toBe(0n);
  });

  it("needs a session", async () => {
    expect((await t.app.inject({ method: "GET", url: "/api/v1/console/runway" })).statusCode).toBe(401);
  });
});
