import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import pg from "pg";
import { describe, expect, it, vi } from "vitest";
import { openDatabase, openPglite, openPostgres, preparedRows, queryRows } from "./client";
import { users } from "./schema/index";
import { POSTGRES_URL } from "../testing/server-process";
import { createTestDatabase } from "../testing/test-database";

const EXPECTED_TABLES = ["idempotency_keys", "sessions", "users"];
/** A fresh PGlite database runs initdb in WebAssembly: seconds on a quiet machine, over 30 on a loaded one. */
const FRESH_PGLITE_TIMEOUT_MS = 120_000;

async function tableNames(db: ReturnType<typeof openPglite>["db"]): Promise<string[]> {
  const rows = await queryRows<{ table_name: string }>(
    db,
    sql`select table_name from information_schema.tables where table_schema = 'public' order by table_name`,
  );
  return rows.map((r) => r.table_name);
}

describe("migrations", () => {
  it("create the schema on a fresh PGlite database, and a second run changes nothing", async () => {
    const database = openPglite({});
    await database.migrate();
    await database.migrate();
    expect(await tableNames(database.db)).toEqual(expect.arrayContaining(EXPECTED_TABLES));
    await database.close();
  }, FRESH_PGLITE_TIMEOUT_MS);

  it("apply again cleanly on the database under test (the PostgreSQL server when DATABASE_URL is set)", async () => {
    const database = await createTestDatabase();
    await database.migrate();
    expect(database.kind).toBe(process.env.DATABASE_URL ? "postgres" : "pglite");
    expect(await tableNames(database.db)).toEqual(expect.arrayContaining(EXPECTED_TABLES));
    await database.close();
  });

  it("keep data in DATA_DIR across a restart", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-data-"));
    const first = openDatabase({ dataDir });
    await first.migrate();
    await first.db.insert(users).values({ phone: "13800138000", referralCode: "abc123" });
    await first.close();

    const second = openDatabase({ dataDir });
    await second.migrate();
    const rows = await second.db.select().from(users);
    expect(rows.map((r) => r.phone)).toEqual(["13800138000"]);
    expect(rows[0]!.balance).toBe(0n);
    await second.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, FRESH_PGLITE_TIMEOUT_MS);
});

describe("a PostgreSQL pool", () => {
  it("logs an idle connection the server ended, and answers the next query on a new one", async () => {
    const warnings: string[] = [];
    const database = openPostgres(POSTGRES_URL, 2, { warn: (_fields, message) => warnings.push(message) });
    const [{ pid }] = await queryRows<{ pid: number }>(database.db, sql`select pg_backend_pid() as pid`) as [{ pid: number }];
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    await admin.query("select pg_terminate_backend($1)", [pid]);
    await admin.end();
    await vi.waitFor(() => expect(warnings).toEqual([expect.stringContaining("an idle database connection was lost")]));
    expect(await queryRows(database.db, sql`select 1 as one`)).toEqual([{ one: 1 }]);
    await database.close();
  });

  it("runs its statements without JIT compilation, whatever the server's default", async () => {
    const database = openPostgres(POSTGRES_URL, 1);
    expect(await queryRows(database.db, sql`select current_setting('jit') as jit`)).toEqual([{ jit: "off" }]);
    await database.close();
  });
});

describe("a statement prepared by name (the database under test)", () => {
  const usersByReferral = { name: "users_by_referral", text: "select phone, balance::text as balance, created_at from users where referral_code = $1" };
  const insertUser = { name: "insert_user", text: "insert into users (phone, referral_code) values ($1, 'ref-' || $1) returning phone" };
  const byReferral = (code: string) => sql`select phone, balance::text as balance, created_at from users where referral_code = ${code}`;

  it("answers each call with its own parameters, as an unprepared query does", async () => {
    const database = await createTestDatabase();
    await database.db.insert(users).values([
      { phone: "13900000101", referralCode: "prepared-1", balance: 1n },
      { phone: "13900000102", referralCode: "prepared-2", balance: 2n },
    ]);
    for (const code of ["prepared-1", "prepared-2", "prepared-1", "nobody"]) {
      expect(await preparedRows(database.db, usersByReferral, [code])).toEqual(await queryRows(database.db, byReferral(code)));
    }
    const [row] = await preparedRows<{ balance: string; created_at: unknown }>(database.db, usersByReferral, ["prepared-2"]);
    expect(row).toMatchObject({ balance: "2", created_at: expect.any(String) });
    await database.close();
  });

  it("fails as an unprepared query fails, and the next call still works", async () => {
    const database = await createTestDatabase();
    expect(await preparedRows(database.db, insertUser, ["13900000201"])).toEqual([{ phone: "13900000201" }]);
    await expect(preparedRows(database.db, insertUser, ["13900000201"])).rejects.toMatchObject({
      cause: { code: "23505", constraint: "users_phone_unique" },
    });
    expect(await preparedRows(database.db, insertUser, ["13900000202"])).toEqual([{ phone: "13900000202" }]);
    await database.close();
  });

  it("run on a transaction, runs in it: sees its writes and is rolled back with it", async () => {
    const database = await createTestDatabase();
    await expect(
      database.db.transaction(async (tx) => {
        await tx.insert(users).values({ phone: "13900000401", referralCode: "prepared-in-tx", balance: 4n });
        expect(await preparedRows(tx, usersByReferral, ["prepared-in-tx"])).toEqual([expect.objectContaining({ phone: "13900000401", balance: "4" })]);
        expect(await preparedRows(tx, insertUser, ["13900000402"])).toEqual([{ phone: "13900000402" }]);
        tx.rollback();
      }),
    ).rejects.toThrow();
    expect(await preparedRows(database.db, insertUser, ["13900000402"])).toEqual([{ phone: "13900000402" }]);
    await database.close();
  });

  it("never runs inside another caller's open transaction", async () => {
    const database = await createTestDatabase();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let written!: () => void;
    const wrote = new Promise<void>((resolve) => (written = resolve));
    const transaction = database.db.transaction(async (tx) => {
      await tx.insert(users).values({ phone: "13900000301", referralCode: "prepared-tx" });
      written();
      await held;
      tx.rollback();
    });
    await wrote;
    const read = preparedRows(database.db, usersByReferral, ["prepared-tx"]);
    release();
    await expect(transaction).rejects.toThrow();
    expect(await read).toEqual([]);
    await database.close();
  });
});
