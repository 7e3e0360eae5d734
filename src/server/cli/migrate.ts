/** Applies pending migrations and exits; `npm start` also does this before listening. */
import { loadConfigOrExit } from "../config";
import { openDatabase, type Database } from "../db/client";
import { DataDirInUseError } from "../lib/private-data-dir";
import { runMigrations } from "./migrate-command";

const config = loadConfigOrExit();
let database: Database;
try {
  database = openDatabase(config);
} catch (error) {
  if (!(error instanceof DataDirInUseError)) throw error;
  console.error(`nothing was applied: ${error.message}`);
  process.exit(1);
}
const code = await runMigrations(database, config, { out: (line) => console.log(line), err: (line) => console.error(line) });
await database.close().catch(() => {});
process.exitCode = code;
