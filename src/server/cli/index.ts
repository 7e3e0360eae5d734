/** `tollgate admin …`: the operators' tool. Uses the same configuration as the server. */
import fs from "node:fs";
import { databaseLocation, loadConfigOrExit } from "../config";
import { hasPgliteDatabase, openDatabase, type Database } from "../db/client";
import { hasBeenMigrated } from "../db/migrations";
import { DataDirInUseError, DataDirNotPrivateError, securePrivateDataDir } from "../lib/private-data-dir";
import { controlSocketPath, runViaControlSocket } from "./control-socket";
import { openingFailure, withoutPassword } from "../lib/database-url";
import { helpAnswer, runCli } from "./run";

/**
 * Why the CLI will not run here, or null: it never makes a database. A wrong or missing DATA_DIR
 * (or DATABASE_URL) would otherwise give a new, empty one, where `ledger verify` says ok and
 * `codes create` prints codes the real server rejects. A database is made by the server's first
 * start or by `npm run migrate`.
 */
function noDatabaseHere(where: string, what: string): string {
  return `no Tollgate database ${where}: start the server once with this ${what} (or run \`npm run migrate\`), or set ${what} to the server's; nothing was done`;
}

/** The database at `where` once it holds Tollgate's tables, or why the CLI will not use it (then closed). */
async function openTollgateDatabase(where: { databaseUrl?: string; dataDir: string }): Promise<Database | string> {
  const database = openDatabase(where);
  let migrated: boolean;
  try {
    migrated = await hasBeenMigrated(database.db);
  } catch (error) {
    await database.close().catch(() => {});
    if (!where.databaseUrl) throw error;
    return `cannot open the database at ${withoutPassword(where.databaseUrl)}: ${openingFailure(error)}`;
  }
  if (migrated) return database;
  await database.close();
  return where.databaseUrl ? noDatabaseHere(`at ${withoutPassword(where.databaseUrl)} (it has no Tollgate tables)`, "DATABASE_URL") : noDatabaseHere(`in ${where.dataDir}`, "DATA_DIR");
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  // Help, and words that name no command, need no database: answered wherever the CLI runs.
  const answer = helpAnswer(argv);
  if (answer) {
    (answer.stream === "out" ? console.log : console.error)(answer.text);
    return answer.code;
  }
  // Checked before the configuration is loaded: loading it makes DATA_DIR and writes a secret there.
  // A folder with a server's admin socket is the server's to answer for (it may run on a database
  // of its own elsewhere); if that server has gone, the check is made again below.
  const location = databaseLocation();
  const embedded = (dataDir: string) => hasPgliteDatabase(dataDir) || fs.existsSync(controlSocketPath(dataDir));
  if (location && !location.databaseUrl && !embedded(location.dataDir)) {
    console.error(noDatabaseHere(`in ${location.dataDir}`, "DATA_DIR"));
    return 1;
  }
  let database: Database | string | null = location?.databaseUrl ? await openTollgateDatabase(location) : null;
  if (typeof database === "string") {
    console.error(database);
    return 1;
  }
  try {
    const config = loadConfigOrExit();
    securePrivateDataDir(config.dataDir);
    if (!database) {
      if (!config.databaseUrl) {
        const io = { out: (line: string) => console.log(line), err: (line: string) => console.error(line) };
        const viaServer = await runViaControlSocket(config.dataDir, argv, io);
        if (viaServer !== null) return viaServer;
        if (!hasPgliteDatabase(config.dataDir)) {
          console.error(noDatabaseHere(`in ${config.dataDir}`, "DATA_DIR"));
          return 1;
        }
      }
      database = await openTollgateDatabase(config);
      if (typeof database === "string") {
        console.error(database);
        return 1;
      }
    }
    await database.migrate();
    return await runCli(argv, { database, config });
  } finally {
    if (database && typeof database !== "string") await database.close();
  }
}

/**
 * Resolves once everything written to `stream` so far has left the process. When stdout is a
 * socket or a slow pipe (`| tee`, `ssh … > codes.txt`), writes queue up, and `process.exit()`
 * would drop them: codes sold but never seen.
 */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || !stream.writable) return resolve();
    stream.write("", () => resolve());
  });
}

async function exitAfterOutput(code: number): Promise<never> {
  await Promise.all([drained(process.stdout), drained(process.stderr)]);
  process.exit(code);
}

/**
 * A reader that stops early (`tollgate admin stats | head -1`) closes the pipe, and the next write
 * fails with EPIPE: unhandled, that ended the process with a stack trace and exit 1 part-way
 * through the command, after its audit record said 0. What is left to print has nowhere to go;
 * the command runs to its end (its change and its audit record whole) and exits with its own code.
 */
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
  });
}

main().then(exitAfterOutput, (error: unknown) => {
  console.error(error instanceof DataDirNotPrivateError || error instanceof DataDirInUseError ? error.message : error);
  return exitAfterOutput(1);
});
