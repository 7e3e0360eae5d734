/** Applies pending migrations and exits; `npm start` also does this before listening. */
import { loadConfigOrExit } from "../config";
import { openDatabase } from "../db/client";
import { runMigrations } from "./migrate-command";

const config = loadConfigOrExit();
const database = openDatabase(config);
const code = await runMigrations(database, config, { out: (line) => console.log(line), err: (line) => console.error(line) });
await database.close().catch(() => {});
process.exitCode = code;
