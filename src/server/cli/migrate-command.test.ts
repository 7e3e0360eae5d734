import { describe, expect, it } from "vitest";
import { openDatabase, openPglite } from "../db/client";
import { runMigrations } from "./migrate-command";

async function migrate(database: ReturnType<typeof openPglite>, where: { databaseUrl?: string; dataDir: string }) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runMigrations(database, where, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

describe("npm run migrate", () => {
  it("says how many migrations it applied, and that the database is up to date when there were none", async () => {
    const database = openPglite({});
    try {
      const first = await migrate(database, { dataDir: "/srv/tollgate" });
      expect(first.code).toBe(0);
      expect(first.out).toEqual([expect.stringMatching(/^applied \d+ migrations to PGlite in \/srv\/tollgate$/)]);
      expect(await migrate(database, { dataDir: "/srv/tollgate" })).toEqual({ code: 0, out: ["no migration to apply: PGlite in /srv/tollgate is up to date"], err: [] });
    } finally {
      await database.close();
    }
  });

  it("names a database it cannot reach without its password, in a sentence, with exit 1", async () => {
    const url = "postgres://tollgate:hunter2@127.0.0.1:1/tollgate";
    const database = openDatabase({ databaseUrl: url, dataDir: "/srv/tollgate" });
    try {
      const run = await migrate(database, { databaseUrl: url, dataDir: "/srv/tollgate" });
      expect(run).toEqual({ code: 1, out: [], err: ["cannot migrate the PostgreSQL database at postgres://tollgate@127.0.0.1:1/tollgate: connect ECONNREFUSED 127.0.0.1:1; nothing was applied"] });
    } finally {
      await database.close().catch(() => {});
    }
  });
});
