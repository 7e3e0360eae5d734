/** Applies pending migrations and exits; `npm start` also does this before listening. */
import { loadConfig } from "../config";
import { openDatabase } from "../db/client";

const config = loadConfig();
const database = openDatabase(config);
await database.migrate();
await database.close();
console.log(`migrations applied (${config.databaseUrl ? "PostgreSQL server" : `PGlite in ${config.dataDir}`})`);
