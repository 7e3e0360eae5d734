import { sql } from "drizzle-orm";
import type { Db } from "../db/client";

let made = 0;

/**
 * Makes the database refuse updates of `table` whose new row matches `when` (SQL), as a full disk
 * or a lost connection would; returns the function that lifts the fault.
 */
export async function refuseUpdates(db: Db, table: string, when: string): Promise<() => Promise<void>> {
  made += 1;
  const name = `refuse_${table}_${process.pid}_${made}`;
  await db.execute(sql.raw(`create function ${name}() returns trigger language plpgsql as $$ begin raise exception 'injected fault'; end $$`));
  await db.execute(sql.raw(`create trigger ${name} before update on ${table} for each row when (${when}) execute function ${name}()`));
  return async () => {
    await db.execute(sql.raw(`drop trigger ${name} on ${table}`));
    await db.execute(sql.raw(`drop function ${name}()`));
  };
}
