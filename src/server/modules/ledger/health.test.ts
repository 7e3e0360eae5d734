import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ledgerEntries, usageRecords, users } from "../../db/schema/index";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { createUserWithSession } from "../../testing/users";
import { LedgerReconciler, stuckHolds } from "./health";

const METRICS_TOKEN = "ledger-health-metrics-token";
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ METRICS_TOKEN, LEDGER_CHECK_INTERVAL_SECONDS: "1" });
});
afterAll(() => t.close());

/** Runs the reconciler until it completes a pass, counting the steps it took. */
async function fullPass(reconciler: LedgerReconciler) {
  for (let steps = 1; steps <= 100; steps++) {
    const pass = await reconciler.step();
    if (pass) return { ...pass, steps };
  }
  throw new Error("no pass completed in 100 steps");
}

async function scrape(): Promise<string> {
  const response = await t.app.inject({ url: "/metrics", headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(response.statusCode).toBe(200);
  return response.body;
}

const gauge = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1]);

describe("the ledger reconciler", () => {
  it("checks a bounded batch of users per step and reports a pass once it has seen them all", async () => {
    for (const balance of ["1", "2.5", "0", "0.000001", "7"]) await createUserWithSession(t, { balance });
    const pass = await fullPass(new LedgerReconciler(t.database.db, 2));
    // Five users in batches of two: three steps, the last one short.
    expect(pass).toEqual({ driftUsers: 0, driftMicros: 0n, negativeBalances: 0, steps: 3 });
  });

  it("finds an entry written behind the ledger's back and a balance changed without one, to the micro-unit", async () => {
    const a = await createUserWithSession(t, { balance: "3" });
    const b = await createUserWithSession(t, { balance: "1" });
    await t.database.db.insert(ledgerEntries).values({
      userId: a.userId,
      amount: 5n,
      balanceAfter: 3_000_005n,
      kind: "topup",
      method: "operator",
      reference: "written by hand",
      idempotencyKey: "behind-the-ledgers-back",
      createdAt: t.clock.now(),
    });
    await t.database.db.update(users).set({ balance: -2_000_000n }).where(eq(users.id, b.userId));
    const pass = await fullPass(new LedgerReconciler(t.database.db, 3));
    // a: balance 3 against entries of 3.000005 (5 micro-units); b: -2 against 1 (3,000,000).
    expect(pass).toMatchObject({ driftUsers: 2, driftMicros: 3_000_005n, negativeBalances: 1 });

    // Put right, the next pass is clean again.
    await t.database.db.update(users).set({ balance: 3_000_005n }).where(eq(users.id, a.userId));
    await t.database.db.update(users).set({ balance: 1_000_000n }).where(eq(users.id, b.userId));
    expect(await fullPass(new LedgerReconciler(t.database.db, 3))).toMatchObject({ driftUsers: 0, driftMicros: 0n, negativeBalances: 0 });
  });

  it("counts holds older than the abandoned-call limit, and only those", async () => {
    const { userId } = await createUserWithSession(t, { balance: "1" });
    // usage_records has no foreign keys (its writers check under their locks): any key id will do here.
    const apiKeyId = 1;
    const now = t.clock.now();
    const hold = (requestId: string, minutesAgo: number) => ({
      userId,
      apiKeyId,
      toolId: "echo",
      units: 1,
      amount: 100n,
      status: "pending" as const,
      requestId,
      createdAt: new Date(now.getTime() - minutesAgo * 60_000),
    });
    await t.database.db.insert(usageRecords).values([hold("stuck", 30), hold("running", 1)]);
    expect(await stuckHolds(t.database.db, new Date(now.getTime() - 10 * 60_000))).toBe(1);
  });
});

describe("the money's health in /metrics", () => {
  it("is reported by the periodic check, and shows a drift written behind the ledger's back", async () => {
    await expect.poll(async () => gauge(await scrape(), "tollgate_ledger_reconciler_passes_total"), { timeout: 15_000 }).toBeGreaterThan(0);
    const user = await createUserWithSession(t, { balance: "1" });
    await t.database.db.update(users).set({ balance: 1_000_042n }).where(eq(users.id, user.userId));
    await expect.poll(async () => gauge(await scrape(), "tollgate_ledger_drift_micros"), { timeout: 15_000 }).toBe(42);
    const text = await scrape();
    expect(gauge(text, "tollgate_ledger_drift_users")).toBe(1);
    expect(gauge(text, "tollgate_negative_balances")).toBe(0);
    expect(t.logs()).toContain("the ledger reconciler found balances that do not match their ledgers");
  });
});
