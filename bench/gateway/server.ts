/**
 * The real server for a benchmark: production mode in a temporary DATA_DIR, on PGlite or a fresh
 * PostgreSQL database, with the admin CLI on the same configuration.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { freePort } from "../../src/server/testing/free-port";
import { PROJECT_NODE, ROOT, START_FLAGS } from "../../src/server/testing/server-process";

/** The compiled server to run: `dist/`, or another build (`DIST=path`) to compare two in one session. */
const DIST = process.env.DIST ?? "dist";
/** The database it makes on PostgreSQL; `BENCH_DATABASE` lets two benchmarks share the server. */
const BENCH_DATABASE = process.env.BENCH_DATABASE ?? "tollgate_bench";

async function freshPostgres(name: string): Promise<string> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`BENCH_DATABASE must be a plain lower-case name, not ${JSON.stringify(name)}`);
  const url = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  await admin.end();
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** The environment a benchmarked server runs in: production mode on 127.0.0.1, its own DATA_DIR. */
export function benchServerEnv(options: { dataDir: string; port: number; logLevel: string }): Record<string, string> {
  return {
    ...(process.env as Record<string, string>),
    NODE_ENV: "production",
    SESSION_SECRET: "bench-secret-0123456789abcdef0123456789abcdef",
    DATA_DIR: options.dataDir,
    PORT: String(options.port),
    HOST: "127.0.0.1",
    LOG_LEVEL: options.logLevel,
  };
}

export interface BenchServer {
  base: string;
  dataDir: string;
  /** The server's fresh PostgreSQL database; null on PGlite. */
  databaseUrl: string | null;
  /** `tollgate admin …` on the server's configuration. */
  cli(...argv: string[]): { code: number; out: string; err: string };
  /** Starts the compiled server as `npm start` does (its Node 24 and flags), and waits until it answers. */
  start(nodeFlags?: string[]): Promise<ChildProcess>;
  /** Removes the DATA_DIR. */
  cleanup(): void;
}

export async function benchServer(options: {
  db: "pglite" | "postgres";
  logLevel: string;
  env?: Record<string, string>;
  /** The build to run (default `DIST`, or `dist/`). */
  dist?: string;
  /** Its database on PostgreSQL (default `BENCH_DATABASE`, or tollgate_bench). */
  database?: string;
}): Promise<BenchServer> {
  const dist = path.resolve(ROOT, options.dist ?? DIST);
  if (!fs.existsSync(path.join(dist, "server.js"))) throw new Error(`${path.join(dist, "server.js")} is missing: run \`npm run build\` first`);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-bench-"));
  const databaseUrl = options.db === "postgres" ? await freshPostgres(options.database ?? BENCH_DATABASE) : null;
  const env: Record<string, string> = {
    ...benchServerEnv({ dataDir, port, logLevel: options.logLevel }),
    UNMETERED_ECHO: "true",
    ALTCHA_MAX_NUMBER: "1000",
    DATABASE_URL: databaseUrl ?? "",
    ...options.env,
  };
  // As an operator sets up a new site: the database is made and migrated before the first
  // `tollgate admin` command (codes are created before the server starts), since the CLI makes none.
  const migrated = spawnSync(PROJECT_NODE, [path.join(dist, "migrate.js")], { env, encoding: "utf8" });
  if (migrated.status !== 0) throw new Error(`could not migrate the benchmark's database: ${migrated.stderr}`);
  return {
    base,
    dataDir,
    databaseUrl,
    cli(...argv) {
      const result = spawnSync(PROJECT_NODE, [path.join(dist, "cli.js"), "admin", ...argv], { env, encoding: "utf8" });
      return { code: result.status ?? 1, out: result.stdout, err: result.stderr };
    },
    async start(nodeFlags = []) {
      const server = spawn(PROJECT_NODE, [...nodeFlags, ...START_FLAGS, path.join(dist, "server.js")], {
        env,
        stdio: ["ignore", "ignore", "inherit"],
      });
      for (let i = 0; i < 600; i++) {
        try {
          if ((await fetch(`${base}/api/v1/health`)).ok) return server;
        } catch {
          /* not listening yet */
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      server.kill();
      throw new Error("the server did not start");
    },
    cleanup: () => fs.rmSync(dataDir, { recursive: true, force: true }),
  };
}
