import { sql } from "drizzle-orm";
import { readMigrationFiles } from "drizzle-orm/migrator";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";

type AnyDb = PgDatabase<PgQueryResultHKT, Record<string, unknown>>;

/**
 * Applies, in the journal's order and in one transaction, every migration of `folder` the database
 * has not recorded, each recorded by its journal date as drizzle records it. drizzle's own migrator
 * applies only the migrations dated after the newest one recorded (drizzle-orm#5769), so one dated
 * before a migration already applied is skipped for good: 0022–0026 are dated before 0021, and a
 * database migrated while 0021 was the newest never got them (docs/decisions/059). Returns how many
 * it applied.
 */
export async function applyMigrations(db: AnyDb, folder: string): Promise<number> {
  const migrations = readMigrationFiles({ migrationsFolder: folder });
  await db.execute(sql`create schema if not exists drizzle`);
  await db.execute(sql`create table if not exists drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint)`);
  return db.transaction(async (tx) => {
    let count = 0;
    const recorded = (await tx.execute(sql`select created_at from drizzle.__drizzle_migrations`)) as unknown as { rows: { created_at: string | number }[] };
    const applied = new Set(recorded.rows.map((row) => Number(row.created_at)));
    for (const migration of migrations) {
      if (applied.has(migration.folderMillis)) continue;
      for (const statement of migration.sql) await tx.execute(sql.raw(statement));
      await tx.execute(sql`insert into drizzle.__drizzle_migrations (hash, created_at) values (${migration.hash}, ${migration.folderMillis})`);
      count++;
    }
    return count;
  });
}

/** Whether migrations were ever applied to this database: one with none holds no Tollgate data. */
export async function hasBeenMigrated(db: AnyDb): Promise<boolean> {
  const rows = async (query: ReturnType<typeof sql>) => ((await db.execute(query)) as unknown as { rows: { ok: boolean }[] }).rows;
  const [table] = await rows(sql`select to_regclass('drizzle.__drizzle_migrations') is not null as ok`);
  if (table?.ok !== true) return false;
  const [applied] = await rows(sql`select exists (select from drizzle.__drizzle_migrations) as ok`);
  return applied?.ok === true;
}
