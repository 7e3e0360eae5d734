import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterEach, expect, it } from "vitest";
import { MIGRATIONS_DIR, openPglite, openPostgres, queryRows, type Database } from "./client";
import { applyMigrations } from "./migrations";
import { emptyPostgresDatabase } from "../testing/server-process";

type Journal = { entries: { idx: number; when: number; tag: string }[] };
const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_DIR, "meta/_journal.json"), "utf8")) as Journal;

/** The migrations folder as a release that ended with migration `lastIdx` shipped it. */
function releaseFolder(lastIdx: number): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-migrations-"));
  fs.cpSync(MIGRATIONS_DIR, folder, { recursive: true });
  const shipped = { ...journal, entries: journal.entries.filter((entry) => entry.idx <= lastIdx) };
  fs.writeFileSync(path.join(folder, "meta/_journal.json"), JSON.stringify(shipped));
  return folder;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An empty database of the kind under test: on the PostgreSQL server when DATABASE_URL is set, else a new PGlite. */
async function emptyDatabase(): Promise<Database> {
  if (!process.env.DATABASE_URL) {
    const database = openPglite({});
    cleanups.push(() => database.close());
    return database;
  }
  const empty = await emptyPostgresDatabase();
  const database = openPostgres(empty.url, 2);
  cleanups.push(async () => {
    await database.close();
    await empty.drop();
  });
  return database;
}

const tables = async (database: Database) =>
  (await queryRows<{ table_name: string }>(database.db, sql`select table_name from information_schema.tables where table_schema = 'public'`)).map((row) => row.table_name);

it("an upgrade applies the migrations dated before the newest one the database has applied", async () => {
  // 0021 is dated after 0022 to 0026: a database migrated by the release that ended with 0021.
  const newest = journal.entries.find((entry) => entry.tag.startsWith("0021_"))!;
  expect(journal.entries.filter((entry) => entry.idx > newest.idx && entry.when < newest.when).map((entry) => entry.idx)).toEqual([22, 23, 24, 25, 26]);
  const database = await emptyDatabase();
  const release = releaseFolder(newest.idx);
  cleanups.push(async () => fs.rmSync(release, { recursive: true, force: true }));
  await applyMigrations(database.db, release);
  expect(await tables(database)).not.toContain("call_log");

  await database.migrate();

  expect(await tables(database)).toEqual(expect.arrayContaining(["call_log", "llm_usage", "unit_lots", "lot_moves", "console_tries"]));
  const recorded = await queryRows<{ created_at: string }>(database.db, sql`select created_at from drizzle.__drizzle_migrations order by id`);
  expect(recorded.map((row) => Number(row.created_at))).toEqual(journal.entries.map((entry) => entry.when));
  // The newest functions, not ones an older migration applied late would leave: charge_call takes a tool's plans (0035).
  const [charge] = await queryRows<{ args: number }>(database.db, sql`select pronargs as args from pg_proc where proname = 'charge_call'`);
  expect(charge?.args).toBe(15);

  await database.migrate();
  expect(await queryRows(database.db, sql`select id from drizzle.__drizzle_migrations`)).toHaveLength(journal.entries.length);
}, 120_000);
