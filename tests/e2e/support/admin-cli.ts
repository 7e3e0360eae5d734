/**
 * `tollgate admin …` (the installed bin, compiled by `npm run build`) against the running
 * end-to-end server, as an operator runs it: through the
 * server's control socket in its DATA_DIR on PGlite, or straight to its database on PostgreSQL.
 */
import { execFile } from "node:child_process";
import { E2E_DATA_DIR, E2E_DATABASE_NAME } from "./e2e-env";

function e2eDatabaseUrl(): string {
  if (!process.env.DATABASE_URL) return "";
  const url = new URL(process.env.DATABASE_URL);
  url.pathname = `/${E2E_DATABASE_NAME}`;
  return url.toString();
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runAdminCli(...args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["bin/tollgate.js", "admin", ...args],
      { env: { ...process.env, DATA_DIR: E2E_DATA_DIR, DATABASE_URL: e2eDatabaseUrl(), LOG_LEVEL: "warn" }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}
