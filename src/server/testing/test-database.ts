import fs from "node:fs";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import { openPglite, openPostgres, type Database } from "../db/client";

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/**
 * A fresh, migrated database for one test file: a copy of the run's template, on PGlite (on a
 * thread of its own, as the server runs it) by default and on the PostgreSQL server when
 * DATABASE_URL is set. Closing it removes the copy.
 */
export async function createTestDatabase(): Promise<Database> {
  const url = process.env.DATABASE_URL;
  const template = inject(url ? "postgresTemplate" : "pgliteTemplate");
  if (!template) {
    throw new Error(
      "no migrated template for this file: vitest.config.ts lists it in ONCE, the files run on one database only; a file that opens the run's database must run on both, so take it off that list",
    );
  }
  if (!url) return openPglite({ template: fs.readFileSync(template), onThread: true });
  const name = `tollgate_t_${process.ppid}_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`create database "${name}" template "${template}"`);
  } finally {
    await admin.end();
  }
  const database = openPostgres(withDatabase(url, name), 20);
  return {
    ...database,
    async close() {
      await database.close();
      const cleanup = new pg.Client({ connectionString: url });
      await cleanup.connect();
      await cleanup.query(`drop database if exists "${name}" with (force)`);
      await cleanup.end();
    },
  };
}
