/** `tollgate admin …`: the operators' tool. Uses the same configuration as the server. */
import { ConfigError, loadConfig } from "../config";
import { openDatabase } from "../db/client";
import { runCli } from "./run";

async function main(): Promise<number> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      return 78;
    }
    throw error;
  }
  const database = openDatabase(config);
  try {
    await database.migrate();
    return await runCli(process.argv.slice(2), { database, config });
  } finally {
    await database.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
