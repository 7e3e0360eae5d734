import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { openPglite, openPostgres } from "../../src/server/db/client";

declare module "vitest" {
  export interface ProvidedContext {
    /** A dump of a migrated PGlite database that each test file loads instead of migrating again. */
    pgliteTemplate: string;
    /** On PostgreSQL: a migrated database each test file copies with CREATE DATABASE … TEMPLATE. */
    postgresTemplate: string;
  }
}

/** Migrates once per run; test files then start from a copy (ARCHITECTURE.md: opening and migrating takes seconds). */
export default async function setup(project: TestProject) {
  const url = process.env.DATABASE_URL;
  if (url) {
    const name = `tollgate_tpl_${process.pid}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    // Copies left by runs that died: their names carry the pid of a process that no longer exists.
    const stale = await admin.query<{ datname: string }>(
      "select datname from pg_database where datname ~ '^tollgate_(t|tpl)_[0-9]+_?'",
    );
    for (const row of stale.rows) {
      const pid = Number(/^tollgate_(?:t|tpl)_(\d+)/.exec(row.datname)?.[1]);
      if (!processAlive(pid)) await admin.query(`drop database if exists "${row.datname}" with (force)`);
    }
    await admin.query(`create database "${name}"`);
    const template = openPostgres(withDatabase(url, name), 1);
    await template.migrate();
    await template.close();
    project.provide("postgresTemplate", name);
    project.provide("pgliteTemplate", "");
    return async () => {
      await admin.query(`drop database if exists "${name}" with (force)`);
      await admin.end();
    };
  }
  const database = openPglite({});
  await database.migrate();
  const file = path.join(os.tmpdir(), `tollgate-pglite-template-${process.pid}.tar`);
  fs.writeFileSync(file, Buffer.from(await (await database.dump!()).arrayBuffer()));
  await database.close();
  project.provide("pgliteTemplate", file);
  project.provide("postgresTemplate", "");
  return () => fs.rmSync(file, { force: true });
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
