import { sql } from "drizzle-orm";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseMoney } from "#shared/money";
import { ManualClock } from "../../clock";
import type { Database } from "../../db/client";
import { ledgerEntries, users } from "../../db/schema/index";
import { createTestDatabase } from "../../testing/test-database";
import { createUserWithSession } from "../../testing/users";
import { credit, debit, UnknownLedgerUserError, type LedgerMove } from "./ledger";
import { verifyLedger } from "./verify";

let database: Database;
const clock = new ManualClock("2026-03-01T08:00:00Z");
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.close());

const t = () => ({ database, clock });
const move = (userId: number, amount: string, key: string, overrides: Partial<LedgerMove> = {}): LedgerMove => ({
  userId,
  amount: parseMoney(amount),
  kind: "charge",
  method: "gateway",
  reference: key,
  idempotencyKey: key,
  at: clock.now(),
  ...overrides,
});

async function balanceOf(userId: number): Promise<bigint> {
  const [row] = await database.db.select({ balance: users.balance }).from(users).where(eq(users.id, userId));
  return row!.balance;
}

describe("credit and debit", () => {
  it("move the balance and append an entry with the balance after it", async () => {
    const { userId } = await createUserWithSession(t());
    const credited = await credit(database.db, move(userId, "12.50", "c1", { kind: "topup", method: "alipay" }));
    expect(credited).toMatchObject({ ok: true, amount: 12_500_000n, balance: 12_500_000n, replayed: false });
    const debited = await debit(database.db, move(userId, "0.000001", "d1"));
    expect(debited).toMatchObject({ ok: true, amount: -1n, balance: 12_499_999n, replayed: false });
    expect(await balanceOf(userId)).toBe(12_499_999n);
    const entries = await database.db.select().from(ledgerEntries).where(eq(ledgerEntries.userId, userId)).orderBy(ledgerEntries.id);
    expect(entries.map((e) => [e.kind, e.amount, e.balanceAfter])).toEqual([
      ["topup", 12_500_000n, 12_500_000n],
      ["charge", -1n, 12_499_999n],
    ]);
  });

  it("return the first result for a repeated idempotency key and move nothing again", async () => {
    const { userId } = await createUserWithSession(t(), { balance: "5" });
    const first = await debit(database.db, move(userId, "2", "once"));
    const again = await debit(database.db, move(userId, "2", "once"));
    expect(first).toMatchObject({ ok: true, balance: 3_000_000n, replayed: false });
    expect(again).toMatchObject({ ok: true, entryId: (first as { entryId: number }).entryId, balance: 3_000_000n, replayed: true });
    const creditTwice = [await credit(database.db, move(userId, "1", "gift")), await credit(database.db, move(userId, "1", "gift"))];
    expect(creditTwice.map((r) => r.replayed)).toEqual([false, true]);
    expect(await balanceOf(userId)).toBe(4_000_000n);
  });

  it("refuse a debit larger than the balance, changing nothing", async () => {
    const { userId } = await createUserWithSession(t(), { balance: "1.00" });
    expect(await debit(database.db, move(userId, "1.000001", "too-much"))).toEqual({
      ok: false,
      reason: "insufficient_balance",
      balance: 1_000_000n,
    });
    expect(await debit(database.db, move(userId, "1.00", "exact"))).toMatchObject({ ok: true, balance: 0n });
    expect(await balanceOf(userId)).toBe(0n);
  });

  it("keep keys per user: two users may use the same key", async () => {
    const a = await createUserWithSession(t());
    const b = await createUserWithSession(t());
    expect((await credit(database.db, move(a.userId, "1", "shared-key"))).replayed).toBe(false);
    expect((await credit(database.db, move(b.userId, "1", "shared-key"))).replayed).toBe(false);
  });

  it("reject non-positive amounts and unknown users", async () => {
    const { userId } = await createUserWithSession(t());
    await expect(credit(database.db, move(userId, "0", "zero"))).rejects.toThrow(RangeError);
    await expect(credit(database.db, move(987_654_321, "1", "nobody"))).rejects.toThrow(UnknownLedgerUserError);
  });

  it("roll back with the caller's transaction", async () => {
    const { userId } = await createUserWithSession(t(), { balance: "3" });
    await expect(
      database.db.transaction(async (tx) => {
        await debit(tx, move(userId, "1", "rolled-back"));
        throw new Error("the caller's work failed");
      }),
    ).rejects.toThrow("the caller's work failed");
    expect(await balanceOf(userId)).toBe(3_000_000n);
    expect((await debit(database.db, move(userId, "1", "rolled-back"))).ok).toBe(true);
  });
});

describe("under concurrency", () => {
  it("200 concurrent debits succeed exactly floor(balance / price) times and leave the exact balance", async () => {
    const balance = parseMoney("10.00");
    const price = parseMoney("0.070001");
    const { userId } = await createUserWithSession(t(), { balance: "10.00" });
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        database.db.transaction(async (tx) => debit(tx, { ...move(userId, "0", `call-${i}`), amount: price })),
      ),
    );
    const succeeded = results.filter((r) => r.ok).length;
    expect(succeeded).toBe(Number(balance / price));
    expect(succeeded).toBe(142);
    expect(results.filter((r) => !r.ok).every((r) => r.ok === false && r.reason === "insufficient_balance")).toBe(true);
    expect(await balanceOf(userId)).toBe(balance - BigInt(succeeded) * price);
    expect(await balanceOf(userId)).toBe(parseMoney("0.059858"));
    expect((await verifyLedger(database.db)).problems).toEqual([]);
  });

  it("many debits batched in one transaction (group commit) stop at the balance too", async () => {
    const { userId } = await createUserWithSession(t(), { balance: "1.00" });
    const outcomes = await database.db.transaction(async (tx) => {
      const out = [];
      for (let i = 0; i < 15; i++) out.push(await debit(tx, move(userId, "0.10", `batch-${i}`)));
      return out;
    });
    expect(outcomes.filter((r) => r.ok)).toHaveLength(10);
    expect(await balanceOf(userId)).toBe(0n);
  });
});

describe("verifyLedger", () => {
  it("passes on a consistent ledger", async () => {
    const report = await verifyLedger(database.db);
    expect(report.problems).toEqual([]);
    expect(report.users).toBeGreaterThan(0);
    expect(report.entries).toBeGreaterThan(0);
  });

  it("reports a balance that differs from its entries, a broken balance_after chain and entries of no user", async () => {
    const probe = await createTestDatabase();
    try {
      const { userId } = await createUserWithSession({ database: probe, clock }, { balance: "2" });
      await probe.db.update(users).set({ balance: 2_000_001n }).where(eq(users.id, userId));
      const other = await createUserWithSession({ database: probe, clock }, { balance: "1" });
      await probe.db.insert(ledgerEntries).values({
        userId: other.userId,
        amount: 5n,
        balanceAfter: 7n,
        kind: "adjustment",
        method: "operator",
        reference: "forged",
        idempotencyKey: "forged",
      });
      await probe.db.insert(ledgerEntries).values({
        userId: 2 ** 40,
        amount: 3n,
        balanceAfter: 3n,
        kind: "adjustment",
        method: "operator",
        reference: "orphan",
        idempotencyKey: "orphan",
      });
      const { problems } = await verifyLedger(probe.db);
      expect(problems).toEqual(
        expect.arrayContaining([
          { type: "balance_mismatch", userId, balance: 2_000_001n, ledgerSum: 2_000_000n },
          { type: "balance_mismatch", userId: other.userId, balance: 1_000_000n, ledgerSum: 1_000_005n },
          expect.objectContaining({ type: "broken_chain", userId: other.userId, expected: 1_000_005n, balanceAfter: 7n }),
          { type: "unknown_user", userId: 2 ** 40, entries: 1 },
        ]),
      );
    } finally {
      await probe.close();
    }
  });

  it("the ledger is append-only: entries cannot be edited or deleted", async () => {
    const { userId } = await createUserWithSession(t(), { balance: "1" });
    await expect(database.db.update(ledgerEntries).set({ amount: 9n }).where(eq(ledgerEntries.userId, userId))).rejects.toThrow();
    await expect(database.db.delete(ledgerEntries).where(eq(ledgerEntries.userId, userId))).rejects.toThrow();
    await expect(database.db.execute(sql`truncate ledger_entries`)).rejects.toThrow();
  });
});
