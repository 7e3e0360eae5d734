import type { Database } from "../db/client";
import { counted } from "../lib/cli/counted";
import { databaseName, openingFailure } from "../lib/database-url";

/**
 * `npm run migrate` (dist/migrate.js): applies what the database has not recorded and says how many,
 * so that an upgrade's step 3 (docs/deployment.md §6) shows whether it did anything; a database it
 * cannot reach is said in a sentence naming it (without its password), exit 1, not a stack trace.
 */
export async function runMigrations(database: Database, where: { databaseUrl?: string; dataDir: string }, print: { out(line: string): void; err(line: string): void }): Promise<number> {
  const named = databaseName(where);
  try {
    const applied = await database.migrate();
    print.out(applied === 0 ? `no migration to apply: ${named} is up to date` : `applied ${counted(applied, "migration")} to ${named}`);
    return 0;
  } catch (error) {
    print.err(`cannot migrate ${named}: ${openingFailure(error)}; nothing was applied`);
    return 1;
  }
}
