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
 * later with fewer units or failed), and clock moves across day boundaries, run against the
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
  /** A call of `units`: drawn from lots in order, the rest charged; null when the balance cannot pay the rest. */
  charge(units: number, at: number): { drawn: { lot: number; units: number }[]; held: bigint } | null {
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
      drawn.push({ lot: index, units: take });
      need -= take;
    }
    const held = PRICE * BigInt(need);
    if (held > this.balance) return null;
    this.balance -= held;
    for (const d of drawn) this.lots[d.lot]!.left -= d.units;
    return { drawn, held };
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
  | { op: "settle"; pick: number; usedShare: number; failed: boolean }
  | { op: "wait"; hours: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant("grant" as const), units: fc.integer({ min: 1, max: 6 }), days: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ op: fc.constant("buy" as const), units: fc.integer({ min: 1, max: 6 }), days: fc.integer({ min: 1, max: 3 }), price: fc.integer({ min: 1, max: 30_000 }) }),
  fc.record({ op: fc.constant("call" as const), units: fc.integer({ min: 1, max: 8 }), held: fc.boolean() }),
  fc.record({ op: fc.constant("call" as const), units: fc.integer({ min: 1, max: 8 }), held: fc.boolean() }),
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
          } else if (s.op === "call") {
            const requestId = `r${run}-${n}`;
            const prepaid = { price: PRICE, freeUnits: FREE_PER_DAY, freeFrom: spendPeriodStart("day", at)!, freeUntil: spendPeriodEnd("day", at)!, stopWhenOut: false };
            const ended = s.held ? undefined : { httpStatus: 200, latencyMs: 1, at };
            const [outcome] = await chargeBatch(database.db, [
              { userId: user.userId, apiKeyId: keyId, toolId: "t", units: s.units, amount: PRICE * BigInt(s.units), requestId, at, ended, prepaid },
            ]);
            const expected = model.charge(s.units, at.getTime());
            expect(outcome!.ok).toBe(expected !== null);
            if (outcome!.ok && expected) {
              expect(outcome!.prepaidUnits).toBe(expected.drawn.reduce((sum, d) => sum + d.units, 0));
              if (s.held) pending.push({ usageId: outcome!.usageId, requestId, units: s.units, ...expected });
            }
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
