import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../clock";
import { loadConfig } from "../../config";
import type { Database } from "../../db/client";
import { users } from "../../db/schema/index";
import { runCli } from "../../cli/run";
import { createTestDatabase } from "../../testing/test-database";
import { createUserWithSession } from "../../testing/users";

let database: Database;
const clock = new ManualClock("2026-03-01T08:00:00Z");
const config = loadConfig({ NODE_ENV: "test", SESSION_SECRET: "s".repeat(32), DATA_DIR: "/tmp/tollgate-test-data" });
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.close());

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(["admin", ...argv], { database, config, clock, out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

const balanceOf = async (userId: number) => (await database.db.select().from(users).where(eq(users.id, userId)))[0]!.balance;

describe("tollgate admin credit", () => {
  it("credits a user found by phone (with +86) or by id, with the reason as the reference", async () => {
    const user = await createUserWithSession({ database, clock }, { phone: "13912345678" });
    const byPhone = await cli("credit", "+86 139 1234 5678", "50", "--reason", "bank transfer 0042");
    expect(byPhone.code).toBe(0);
    expect(byPhone.out).toMatch(/credited 50.00 to user \d+ \(139\*\*\*\*5678\); balance now 50.00/);
    const byId = await cli("credit", String(user.userId), "0.5", "--reason", "goodwill");
    expect(byId.code).toBe(0);
    expect(await balanceOf(user.userId)).toBe(50_500_000n);
  });

  it("credits once per --idempotency-key however often it runs", async () => {
    const user = await createUserWithSession({ database, clock });
    expect((await cli("credit", String(user.userId), "10", "--reason", "ticket 7", "--idempotency-key", "ticket-7")).code).toBe(0);
    const again = await cli("credit", String(user.userId), "10", "--reason", "ticket 7", "--idempotency-key", "ticket-7");
    expect(again.code).toBe(0);
    expect(again.out).toMatch(/already credited with this --idempotency-key \(entry \d+, 10\.00\): nothing changed/);
    const debited = await cli("debit", String(user.userId), "4", "--reason", "ticket 7 fix", "--idempotency-key", "ticket-7-fix");
    expect(debited).toMatchObject({ code: 0, out: expect.stringMatching(/^took 4\.00 from user \d+ .*; balance now 6\.00/) });
    expect((await cli("debit", String(user.userId), "4", "--reason", "ticket 7 fix", "--idempotency-key", "ticket-7-fix")).out).toMatch(/already debited/);
    expect(await balanceOf(user.userId)).toBe(6_000_000n);
    // The same key for another adjustment (the other direction, or another amount) moves nothing and says so.
    const otherWay = await cli("debit", String(user.userId), "10", "--reason", "ticket 7", "--idempotency-key", "ticket-7");
    expect(otherWay.code).toBe(1);
    expect(otherWay.err).toMatch(/^--idempotency-key "ticket-7" was used for a credit of 10\.00 to user \d+ with --reason "ticket 7" \(entry \d+\): nothing changed; a different adjustment needs a key of its own/);
    const otherAmount = await cli("credit", String(user.userId), "5", "--reason", "ticket 7", "--idempotency-key", "ticket-7");
    expect(otherAmount.code).toBe(1);
    expect((await cli("credit", String(user.userId), "4", "--reason", "x", "--idempotency-key", "ticket-7-fix")).err).toMatch(/was used for a debit of 4\.00/);
    // Another reason is another adjustment too: the user would read a reference that was never posted.
    const otherReason = await cli("credit", String(user.userId), "10", "--reason", "ticket 8", "--idempotency-key", "ticket-7");
    expect(otherReason.code).toBe(1);
    expect(otherReason.err).toMatch(/was used for a credit of 10\.00 to user \d+ with --reason "ticket 7" \(entry \d+\): nothing changed/);
    expect(await balanceOf(user.userId)).toBe(6_000_000n);
    const blank = await cli("credit", String(user.userId), "1", "--reason", "x", "--idempotency-key", " ");
    expect(blank.code).toBe(64);
    expect(blank.err).toMatch(/^--idempotency-key: 1 to 200 characters/);
  });

  it("refuses a missing reason, a bad amount and an unknown user", async () => {
    const user = await createUserWithSession({ database, clock });
    expect((await cli("credit", String(user.userId), "10")).code).toBe(64);
    const negative = await cli("credit", String(user.userId), "-5", "--reason", "x");
    expect(negative.code).toBe(64);
    expect(negative.err).not.toMatch(/Unknown option/);
    expect(negative.err.split("\n")[0]).toBe('"-5": amounts and counts are never negative: to take money off a balance, use `tollgate admin debit`');
    const negativeDebit = await cli("debit", String(user.userId), "-5", "--reason", "x");
    expect(negativeDebit.code).toBe(64);
    expect(negativeDebit.err.split("\n")[0]).toBe('"-5": amounts and counts are never negative');
    expect((await cli("credit", String(user.userId), "1.2345678", "--reason", "x")).code).toBe(64);
    const unknown = await cli("credit", "13000000000", "1", "--reason", "x");
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(/no user/);
    expect(await balanceOf(user.userId)).toBe(0n);
  });
});

describe("tollgate admin credit and debit, what the operator types", () => {
  it("refuses a reason the user could not read as plain text, and names no key it was given for a user", async () => {
    const user = await createUserWithSession({ database, clock }, { balance: "1" });
    for (const direction of ["credit", "debit"]) {
      const refused = await cli(direction, String(user.userId), "0.01", "--reason", "ok\nforged: credited 1000.00");
      expect([refused.code, refused.out, refused.err.split("\n")[0]]).toEqual([64, "", "--reason: must not contain control characters, tabs, line breaks or text-direction marks"]);
    }
    expect(await balanceOf(user.userId)).toBe(1_000_000n);
    const key = `tg_${"k".repeat(39)}WXYZ`;
    const refused = await cli("credit", key, "0.01", "--reason", "x");
    expect([refused.code, refused.out, refused.err.split("\n")[0]]).toEqual([64, "", '"tg_…WXYZ" names no user: give a phone number or a user id (users find also takes 4 or more digits of a phone, an API key or a masked key)']);
  });
});

describe("tollgate admin credit, large amounts", () => {
  it("refuses one credit above OPERATOR_CREDIT_MAX unless --force, and says why", async () => {
    const user = await createUserWithSession({ database, clock });
    const refused = await cli("credit", String(user.userId), "10000.01", "--reason", "typo");
    expect(refused.code).toBe(64);
    expect(refused.err).toContain("10000.01 is more than one credit may add (10000.00, OPERATOR_CREDIT_MAX): check the amount, or add --force");
    expect(await balanceOf(user.userId)).toBe(0n);
    expect((await cli("credit", String(user.userId), "10000", "--reason", "at the cap")).code).toBe(0);
    expect((await cli("credit", String(user.userId), "20000", "--reason", "contract", "--force")).code).toBe(0);
    expect(await balanceOf(user.userId)).toBe(30_000_000_000n);
  });

  it("turns a balance out of the database's range into a clear message, changing nothing", async () => {
    const user = await createUserWithSession({ database, clock });
    expect((await cli("credit", String(user.userId), "9223372036854.775807", "--reason", "max", "--force")).code).toBe(0);
    const over = await cli("credit", String(user.userId), "1", "--reason", "one more");
    expect(over.code).toBe(1);
    expect(over.err).toBe("error: the result is out of range for the database (an amount or balance too large): nothing was changed");
    expect(await balanceOf(user.userId)).toBe(9_223_372_036_854_775_807n);
    expect((await cli("ledger", "verify")).code).toBe(0);
  });
});

describe("tollgate admin ledger verify", () => {
  it("exits 0 on a consistent ledger and non-zero, naming the user, on any difference", async () => {
    const ok = await cli("ledger", "verify");
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/ledger ok: \d+ users, \d+ entries/);
    // A site with one user and one entry reads in the singular, as the CLI's other counts do.
    const fresh = await createTestDatabase();
    try {
      await createUserWithSession({ database: fresh, clock }, { balance: "1" });
      const out: string[] = [];
      const code = await runCli(["admin", "ledger", "verify"], { database: fresh, config, clock, out: (l) => out.push(l), err: () => {} });
      expect([code, out]).toEqual([0, ["ledger ok: 1 user, 1 entry, every balance equals the sum of its entries"]]);
    } finally {
      await fresh.close();
    }

    const user = await createUserWithSession({ database, clock }, { balance: "3" });
    await database.db.update(users).set({ balance: 4_000_000n }).where(eq(users.id, user.userId));
    const bad = await cli("ledger", "verify");
    expect(bad.code).toBe(1);
    expect(bad.err).toContain(`user ${user.userId}: balance 4.00 but its entries sum to 3.00`);
  });
});

describe("an option a command does not take", () => {
  it("is named with the command and its help, exit 64, without parseArgs' advice to put it after --", async () => {
    const json = await cli("ledger", "verify", "--json");
    expect(json.code).toBe(64);
    expect(json.err.split("\n")).toEqual(['unknown option --json for "ledger verify"; see tollgate admin ledger verify --help', "usage: tollgate admin ledger verify"]);
    const bogus = await cli("users", "show", "13800000001", "--bogus=1");
    expect(bogus.code).toBe(64);
    expect(bogus.err.split("\n")[0]).toBe('unknown option --bogus for "users show"; see tollgate admin users show --help');
    expect((await cli("users", "show", "13800000001", "-x")).err.split("\n")[0]).toBe('unknown option -x for "users show"; see tollgate admin users show --help');
  });
});
