import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import pg from "pg";
import { describe, expect, it, vi } from "vitest";
import { openDatabase, openPglite, openPostgres, queryRows } from "./client";
import { users } from "./schema/index";
import { POSTGRES_URL } from "../testing/server-process";
import { createTestDatabase } from "../testing/test-database";

const EXPECTED_TABLES = ["idempotency_keys", "sessions", "users"];

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
  });

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
  });
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
});
