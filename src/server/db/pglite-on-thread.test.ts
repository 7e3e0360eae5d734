import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPglite, queryRows, type Database } from "./client";
import { users } from "./schema/index";

/** The server's embedded database runs on a thread of its own; these are the promises it keeps. */
let database: Database;

beforeAll(async () => {
  database = openPglite({ onThread: true });
  await database.migrate();
});
afterAll(async () => {
  await database.close();
});

const phone = (n: number) => `1390000${String(n).padStart(4, "0")}`;

describe("PGlite on its own thread", () => {
  it("answers queries with parameters, as drizzle builds them", async () => {
    const [inserted] = await database.db
      .insert(users)
      .values({ phone: phone(1), referralCode: "thread-1", balance: 12_345_678n })
      .returning();
    expect(inserted).toMatchObject({ phone: phone(1), balance: 12_345_678n });
    // Timestamps come back as drizzle reads them, not turned into something else on the way.
    expect(inserted!.createdAt).toBeInstanceOf(Date);
    const rows = await queryRows<{ phone: string; balance: string }>(
      database.db,
      sql`select phone, balance::text as balance from users where referral_code = ${"thread-1"}`,
    );
    expect(rows).toEqual([{ phone: phone(1), balance: "12345678" }]);
  });

  it("passes PostgreSQL's error fields across the thread", async () => {
    await database.db.insert(users).values({ phone: phone(2), referralCode: "thread-2" });
    const error = await database.db
      .insert(users)
      .values({ phone: phone(2), referralCode: "thread-2b" })
      .then(() => null, (e: unknown) => e as Error & { cause?: Record<string, unknown> });
    expect(error).not.toBeNull();
    expect(error!.cause).toMatchObject({ code: "23505", constraint: "users_phone_unique" });
    expect(String(error!.cause?.message)).toMatch(/duplicate key/);
  });

  it("commits a transaction's statements together, and rolls all of them back when it throws", async () => {
    await database.db.transaction(async (tx) => {
      await tx.insert(users).values({ phone: phone(3), referralCode: "thread-3" });
      await tx.insert(users).values({ phone: phone(4), referralCode: "thread-4" });
    });
    await expect(
      database.db.transaction(async (tx) => {
        await tx.insert(users).values({ phone: phone(5), referralCode: "thread-5" });
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    await expect(
      database.db.transaction(async (tx) => {
        await tx.insert(users).values({ phone: phone(6), referralCode: "thread-6" });
        tx.rollback();
      }),
    ).rejects.toThrow();
    const rows = await queryRows<{ referral_code: string }>(
      database.db,
      sql`select referral_code from users where referral_code in ('thread-3', 'thread-4', 'thread-5', 'thread-6') order by 1`,
    );
    expect(rows.map((r) => r.referral_code)).toEqual(["thread-3", "thread-4"]);
  });

  it("holds other statements back while a transaction is open, as PGlite does in-thread", async () => {
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const transaction = database.db.transaction(async (tx) => {
      await tx.insert(users).values({ phone: phone(7), referralCode: "thread-7" });
      order.push("transaction wrote");
      await held;
      order.push("transaction ends");
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const outside = queryRows<{ n: string }>(database.db, sql`select count(*)::text as n from users where referral_code = 'thread-7'`).then((rows) => {
      order.push("outside read");
      return rows[0]!.n;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await transaction;
    // The outside statement waited, so it saw the committed row.
    expect(await outside).toBe("1");
    expect(order).toEqual(["transaction wrote", "transaction ends", "outside read"]);
  });

  it("refuses statements once closed, with a clear error", async () => {
    const other = openPglite({ onThread: true });
    await Promise.all([other.close(), other.close()]);
    await expect(queryRows(other.db, sql`select 1`)).rejects.toMatchObject({ cause: { message: "the database is closed" } });
  });
});
