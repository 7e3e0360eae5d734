/** `tollgate admin …`: the operators' tool. Uses the same configuration as the server. */
import { loadConfigOrExit } from "../config";
import { openDatabase } from "../db/client";
import { DataDirNotPrivateError, securePrivateDataDir } from "../lib/private-data-dir";
import { runViaControlSocket } from "./control-socket";
import { runCli } from "./run";

async function main(): Promise<number> {
  const config = loadConfigOrExit();
  securePrivateDataDir(config.dataDir);
  const argv = process.argv.slice(2);
  if (!config.databaseUrl) {
    const io = { out: (line: string) => console.log(line), err: (line: string) => console.error(line) };
    const viaServer = await runViaControlSocket(config.dataDir, argv, io);
    if (viaServer !== null) return viaServer;
  }
  const database = openDatabase(config);
  try {
    await database.migrate();
    return await runCli(argv, { database, config });
  } finally {
    await database.close();
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

main().then(exitAfterOutput, (error: unknown) => {
  console.error(error instanceof DataDirNotPrivateError ? error.message : error);
  return exitAfterOutput(1);
});
