import fc from "fast-check";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spendPeriodStart } from "#shared/spend-period";
import { tieredCost, type Tiers } from "#shared/tiers";
import { ManualClock } from "../../clock";
import type { Database } from "../../db/client";
import { users } from "../../db/schema/index";
import { insertApiKey } from "../../testing/keys";
import { createTestDatabase } from "../../testing/test-database";
import { createUserWithSession } from "../../testing/users";
import { chargeBatch, refundBatch, settleTiered } from "../ledger/index";
import { verifyLedger } from "../ledger/verify";

/*
 * Issue 37 §1 and §4, decision 058: random sequences of held calls of a tool with tiers, ended in
 * any order (succeeded with fewer units than held, or failed) across Beijing month boundaries, run
 * against the database and against a model that prices each success by the month's count before
 * it; after every step the balance agrees, and at the end the ledger verifies.
 */

const DAY = 86_400_000;
const tiersOf = (mode: Tiers["mode"]): Tiers => ({ mode, bands: [{ upTo: 4, price: 10_000n }, { upTo: 9, price: 6_000n }, { upTo: null, price: 3_000n }] });
const DEAREST = 10_000n;

type Step = { op: "call"; units: number } | { op: "end"; pick: number; usedShare: number; failed: boolean } | { op: "wait"; days: number };
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant("call" as const), units: fc.integer({ min: 1, max: 6 }) }),
  fc.record({ op: fc.constant("end" as const), pick: fc.nat(), usedShare: fc.double({ min: 0, max: 1, noNaN: true }), failed: fc.boolean() }),
  fc.record({ op: fc.constant("end" as const), pick: fc.nat(), usedShare: fc.double({ min: 0, max: 1, noNaN: true }), failed: fc.constant(false) }),
  fc.record({ op: fc.constant("wait" as const), days: fc.integer({ min: 1, max: 12 }) }),
);

let database: Database;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.close());

describe("tiers", () => {
  it.each(["graduated", "volume"] as const)("price %s successes by the month's count before them, in whatever order calls end", async (mode) => {
    const tiers = tiersOf(mode);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 30 }), async (steps) => {
        run += 1;
        const clock = new ManualClock("2026-01-25T08:00:00Z");
        const user = await createUserWithSession({ database, clock }, { balance: "1" });
        const keyId = await insertApiKey(database.db, user.userId, clock.now());
        let balance = 1_000_000n;
        const counted = new Map<number, number>();
        const pending: { usageId: number; requestId: string; units: number; at: Date }[] = [];
        let n = 0;
        for (const s of steps) {
          n += 1;
          const at = clock.now();
          if (s.op === "wait") clock.advance(s.days * DAY);
          else if (s.op === "call") {
            const requestId = `${mode}${run}-${n}`;
            const [outcome] = await chargeBatch(database.db, [{ userId: user.userId, apiKeyId: keyId, toolId: "t", units: s.units, amount: DEAREST * BigInt(s.units), requestId, at }]);
            expect(outcome!.ok).toBe(balance >= DEAREST * BigInt(s.units));
            if (outcome!.ok) {
              balance -= DEAREST * BigInt(s.units);
              pending.push({ usageId: outcome!.usageId, requestId, units: s.units, at });
            }
          } else if (pending.length > 0) {
            const [call] = pending.splice(s.pick % pending.length, 1);
            const held = DEAREST * BigInt(call!.units);
            const settlement = { usageId: call!.usageId, userId: user.userId, apiKeyId: keyId, requestId: call!.requestId, at, httpStatus: 200, latencyMs: 1 };
            if (s.failed) {
              await refundBatch(database.db, [{ ...settlement, amount: held, finalStatus: "refunded", units: call!.units, httpStatus: null }]);
              balance += held;
            } else {
              const used = Math.max(1, Math.round(call!.units * s.usedShare));
              const month = spendPeriodStart("month", call!.at)!;
              const priced = await settleTiered(database.db, { settlement: { ...settlement, units: used }, toolId: "t", tiers, held, balanceUnits: used, monthStart: month });
              const before = counted.get(month.getTime()) ?? 0;
              const cost = tieredCost(tiers, before, used);
              counted.set(month.getTime(), before + used);
              expect(priced).toEqual({ settled: true, cost });
              balance += held - cost;
            }
          }
          const [row] = await database.db.select({ balance: users.balance }).from(users).where(eq(users.id, user.userId));
          expect(row!.balance).toBe(balance);
        }
      }),
      { seed: 58, numRuns: 25, endOnFailure: true },
    );
    expect((await verifyLedger(database.db)).problems).toEqual([]);
  }, 240_000);
});
