import { insertApiKey } from "../../testing/keys";
import fc from "fast-check";
import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spendPeriodEnd, spendPeriodStart } from "#shared/spend-period";
import { ManualClock } from "../../clock";
import type { Database } from "../../db/client";
import { unitLots, users } from "../../db/schema/index";
import { createTestDatabase } from "../../testing/test-database";
import { createUserWithSession } from "../../testing/users";
import { buyPackage, chargeBatch, grantPackage, refundBatch, type PackageTerms } from "../ledger/index";
import { verifyLedger } from "../ledger/verify";

/*
 * Issue 37 §4: random sequences of grants, purchases, calls (charged whole, or held and settled
 * later with fewer units or failed; alone, or several in one batch), and clock moves across day boundaries, run against the
 * database and against a small model of the rules in decision 054; after every step each lot's
 * units left and the balance agree, and at the end the ledger and the lots verify.
 */

const PRICE = 10_000n; // 0.01 a unit
const FREE_PER_DAY = 3;
const HOUR = 3_600_000;

type ModelLot = { source: "free" | "package" | "grant"; left: number; effective: number; expires: number; origin: string };
type Pending = { usageId: number; requestId: string; units: number; drawn: { lot: number; units: number }[]; held: bigint };

class Model {
  lots: ModelLot[] = [];
  balance: bigint;
  constructor(balance: bigint) {
    this.balance = balance;
  }
  private freeLot(at: number) {
    const from = spendPeriodStart("day", new Date(at))!.getTime();
    const origin = `free:${from}`;
    if (!this.lots.some((l) => l.origin === origin)) {
      this.lots.push({ source: "free", left: FREE_PER_DAY, effective: from, expires: spendPeriodEnd("day", new Date(at))!.getTime(), origin });
    }
  }
  /** Takes a call of `units` from the lots usable at `at`, in draw order; `need`: what they did not cover. */
  private draw(units: number, at: number): { drawn: { lot: number; units: number }[]; need: number } {
    this.freeLot(at);
    const order = this.lots
      .map((lot, index) => ({ lot, index }))
      .filter(({ lot }) => lot.left > 0 && lot.effective <= at && lot.expires > at)
      .sort((a, b) => Number(b.lot.source === "free") - Number(a.lot.source === "free") || a.lot.expires - b.lot.expires || a.index - b.index);
    const drawn: { lot: number; units: number }[] = [];
    let need = units;
    for (const { lot, index } of order) {
      if (need === 0) break;
      const take = Math.min(lot.left, need);
      lot.left -= take;
      drawn.push({ lot: index, units: take });
      need -= take;
    }
    return { drawn, need };
  }
  /**
   * Calls charged in one batch (a lone call is a batch of one): each drawn in arrival order as if
   * every call before it had been admitted, then admitted in that order while the balance pays its
   * rest; a refused call's draws go back (decision 054, "a batch").
   */
  chargeBatch(units: number[], at: number): ({ drawn: { lot: number; units: number }[]; held: bigint } | null)[] {
    return units
      .map((u) => this.draw(u, at))
      .map(({ drawn, need }) => {
        const held = PRICE * BigInt(need);
        if (held > this.balance) {
          for (const d of drawn) this.lots[d.lot]!.left += d.units;
          return null;
        }
        this.balance -= held;
        return { drawn, held };
      });
  }
  /** Ends a held call: `used` units (0: it failed); the balance's part comes back first, then lots last drawn first. */
  settle(call: Pending, used: number) {
    const drawnUnits = call.drawn.reduce((sum, d) => sum + d.units, 0);
    const keep = Math.min(used, drawnUnits);
    this.balance += call.held - PRICE * BigInt(Math.max(0, used - drawnUnits));
    let give = drawnUnits - keep;
    for (const d of [...call.drawn].reverse()) {
      const back = Math.min(d.units, give);
      this.lots[d.lot]!.left += back;
      give -= back;
    }
  }
}

type Step =
  | { op: "grant"; units: number; days: number }
  | { op: "buy"; units: number; days: number; price: number }
  | { op: "call"; units: number; held: boolean }
  | { op: "batch"; calls: { units: number; held: boolean }[] }
  | { op: "settle"; pick: number; usedShare: number; failed: boolean }
  | { op: "wait"; hours: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant("grant" as const), units: fc.integer({ min: 1, max: 6 }), days: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ op: fc.constant("buy" as const), units: fc.integer({ min: 1, max: 6 }), days: fc.integer({ min: 1, max: 3 }), price: fc.integer({ min: 1, max: 30_000 }) }),
  fc.record({ op: fc.constant("call" as const), units: fc.integer({ min: 1, max: 8 }), held: fc.boolean() }),
  fc.record({ op: fc.constant("call" as const), units: fc.integer({ min: 1, max: 8 }), held: fc.boolean() }),
  fc.record({
    op: fc.constant("batch" as const),
    calls: fc.array(fc.record({ units: fc.integer({ min: 1, max: 8 }), held: fc.boolean() }), { minLength: 2, maxLength: 4 }),
  }),
  fc.record({ op: fc.constant("settle" as const), pick: fc.nat(), usedShare: fc.double({ min: 0, max: 1, noNaN: true }), failed: fc.boolean() }),
  fc.record({ op: fc.constant("wait" as const), hours: fc.integer({ min: 1, max: 30 }) }),
);

let database: Database;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.close());

describe("draws from lots", () => {
  it("agree with the model of decision 054 for any sequence of grants, purchases, calls, settlements and days", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 30 }), async (steps) => {
        run += 1;
        const clock = new ManualClock("2026-03-01T14:00:00Z"); // 22:00 in Beijing, two hours before a new day
        const user = await createUserWithSession({ database, clock }, { balance: "0.30" });
        const keyId = await insertApiKey(database.db, user.userId, clock.now());
        const model = new Model(300_000n);
        const pending: Pending[] = [];
        const terms = (units: number, days: number, price: bigint): PackageTerms => ({ toolId: "t", packageId: "p", name: "P", units, price, validDays: days });
        let n = 0;
        for (const s of steps) {
          n += 1;
          const at = clock.now();
          if (s.op === "wait") clock.advance(s.hours * HOUR);
          else if (s.op === "grant") {
            await grantPackage(database.db, { userId: user.userId, terms: terms(s.units, s.days, 0n), count: 1, at, idempotencyKey: `g${run}-${n}` });
            model.lots.push({ source: "grant", left: s.units, effective: at.getTime(), expires: at.getTime() + s.days * 24 * HOUR, origin: `g${n}` });
          } else if (s.op === "buy") {
            const price = BigInt(s.price);
            const bought = await buyPackage(database.db, { userId: user.userId, terms: terms(s.units, s.days, price), at, idempotencyKey: `b${run}-${n}` });
            expect(bought.ok).toBe(model.balance >= price);
            if (bought.ok) {
              model.balance -= price;
              model.lots.push({ source: "package", left: s.units, effective: at.getTime(), expires: at.getTime() + s.days * 24 * HOUR, origin: `b${n}` });
            }
          } else if (s.op === "call" || s.op === "batch") {
            const calls = s.op === "call" ? [s] : s.calls;
            const prepaid = { price: PRICE, freeUnits: FREE_PER_DAY, freeFrom: spendPeriodStart("day", at)!, freeUntil: spendPeriodEnd("day", at)!, stopWhenOut: false };
            const items = calls.map((c, i) => ({
              userId: user.userId,
              apiKeyId: keyId,
              toolId: "t",
              units: c.units,
              amount: PRICE * BigInt(c.units),
              requestId: `r${run}-${n}-${i}`,
              at,
              ended: c.held ? undefined : { httpStatus: 200, latencyMs: 1, at },
              prepaid,
            }));
            const outcomes = await chargeBatch(database.db, items);
            const expected = model.chargeBatch(calls.map((c) => c.units), at.getTime());
            calls.forEach((c, i) => {
              const [outcome, modelled] = [outcomes[i]!, expected[i]!];
              expect(outcome.ok).toBe(modelled !== null);
              if (outcome.ok && modelled) {
                expect(outcome.prepaidUnits).toBe(modelled.drawn.reduce((sum, d) => sum + d.units, 0));
                if (c.held) pending.push({ usageId: outcome.usageId, requestId: items[i]!.requestId, units: c.units, ...modelled });
              }
            });
          } else if (pending.length > 0) {
            const [call] = pending.splice(s.pick % pending.length, 1);
            const used = s.failed ? 0 : Math.max(1, Math.round(call!.units * s.usedShare));
            const drawnUnits = call!.drawn.reduce((sum, d) => sum + d.units, 0);
            const refund = call!.held - PRICE * BigInt(Math.max(0, used - drawnUnits));
            await refundBatch(database.db, [
              {
                usageId: call!.usageId,
                userId: user.userId,
                apiKeyId: keyId,
                amount: s.failed ? call!.held : refund,
                requestId: call!.requestId,
                at,
                finalStatus: s.failed ? "refunded" : "succeeded",
                units: s.failed ? call!.units : used,
                httpStatus: s.failed ? null : 200,
                latencyMs: 1,
              },
            ]);
            model.settle(call!, used);
          }
          const lots = await database.db.select().from(unitLots).where(eq(unitLots.userId, user.userId)).orderBy(asc(unitLots.id));
          const [row] = await database.db.select({ balance: users.balance }).from(users).where(eq(users.id, user.userId));
          expect({ balance: row!.balance, left: lots.map((l) => [l.source, l.unitsLeft]) }).toEqual({
            balance: model.balance,
            left: model.lots.map((l) => [l.source, l.left]),
          });
        }
      }),
      { seed: 37, numRuns: 40, endOnFailure: true },
    );
    expect((await verifyLedger(database.db)).problems).toEqual([]);
  }, 240_000);
});
