/**
 * The compiled server as an operator runs it: built by the real build step into a folder of its
 * own, started as a child process on the project's Node 24, read through its JSON log lines.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { buildServer } from "../../../scripts/build-server";
import { openDatabase, type Database } from "../db/client";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
/** The Node 24 of the `node` dependency, which `npm start` and the systemd unit run (docs/decisions/014). */
export const PROJECT_NODE = path.join(ROOT, "node_modules/.bin/node");

/** Runs `args` on the project's Node to their end: the exit code and everything written to stdout and stderr. */
export function runNode(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(PROJECT_NODE, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out, err }));
  });
}
/** The Node flags `npm start` gives the server (package.json), so tests and benchmarks start it alike. */
export const START_FLAGS: string[] = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: { start: string } }).scripts.start
  .split(" ")
  .filter((word) => word.startsWith("--"));

/**
 * Compiles the server into a new folder inside the package (so it finds node_modules and drizzle/),
 * or, under scripts/test.sh, gives the dist/ its `npm run build` has just made (TEST_COMPILED_SERVER):
 * the same build step, once for every file rather than a build in each file's start-up hook.
 */
export async function buildServerForTest(): Promise<{ dir: string; remove(): void }> {
  const built = process.env.TEST_COMPILED_SERVER;
  if (built) return { dir: built, remove: () => undefined };
  fs.mkdirSync(path.join(ROOT, ".test-output"), { recursive: true });
  const dir = fs.mkdtempSync(path.join(ROOT, ".test-output", "dist-"));
  await buildServer(ROOT, dir);
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export interface ServerProcess {
  child: ChildProcess;
  /** Every JSON log line so far. */
  lines: Record<string, unknown>[];
  stderr(): string;
  /** Resolves with the first log line `match` accepts, waiting for it if need be. */
  logLine(match: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** The process's end, once its output has all been read too (`close`, not `exit`: stderr may still be arriving at `exit`). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `node` and `cwd` default to the project's Node 24 and this process's folder (an installed copy has its own). */
export function startServerProcess(script: string, env: Record<string, string>, options: { node?: string; cwd?: string } = {}): ServerProcess {
  const child = spawn(options.node ?? PROJECT_NODE, [...START_FLAGS, script], {
    cwd: options.cwd,
    env: { ...process.env, LOG_LEVEL: "info", HOST: "127.0.0.1", PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: Record<string, unknown>[] = [];
  const waiters = new Set<() => void>();
  let err = "";
  let partial = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    partial += chunk;
    const complete = partial.split("\n");
    partial = complete.pop()!;
    for (const text of complete) {
      try {
        lines.push(JSON.parse(text) as Record<string, unknown>);
      } catch {
        lines.push({ msg: text });
      }
    }
    for (const wake of waiters) wake();
  });
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("close", (code, signal) => resolve({ code, signal })));
  const logLine = (match: (line: Record<string, unknown>) => boolean, timeoutMs = 540_000) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const check = () => {
        const found = lines.find(match);
        if (found) {
          finish();
          resolve(found);
        }
        return found;
      };
      const fail = (why: string) => {
        finish();
        reject(new Error(`${why}; stderr: ${err}\nlog: ${lines.map((l) => JSON.stringify(l)).join("\n")}`));
      };
      const timer = setTimeout(() => fail("no such log line"), timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      // A process whose output has ended logs nothing more: say so at once rather than at the timeout.
      void exited.then(({ code, signal }) => check() ?? fail(`the process ended (${signal ?? `exit code ${code}`}) without such a log line`));
      waiters.add(check);
      check();
    });
  return { child, lines, stderr: () => err, logLine, exited };
}

/** The address a started server announced in its "ready" line. */
export async function readyUrl(server: ServerProcess): Promise<string> {
  const ready = await server.logLine((line) => line.msg === "ready");
  return `http://127.0.0.1:${String(ready.port ?? new URL(String(ready.url)).port)}`;
}

/** The PostgreSQL server of the run (DATABASE_URL) or the local one; multi-process serving needs one. */
export const POSTGRES_URL = process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres";

/** A new, empty database on the PostgreSQL server, dropped by `drop`. */
export async function emptyPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `tollgate_t_${process.ppid}_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  await admin.end();
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const cleanup = new pg.Client({ connectionString: POSTGRES_URL });
      await cleanup.connect();
      await cleanup.query(`drop database if exists "${name}" with (force)`);
      await cleanup.end();
    },
  };
}

/**
 * The database of a server started with `env` (its DATABASE_URL, or PGlite in its DATA_DIR),
 * migrated, for `use`; closed after. PGlite belongs to one process: only while no server runs on it.
 */
export async function withServerDatabase<T>(env: Record<string, string>, use: (database: Database) => Promise<T>): Promise<T> {
  const database = openDatabase({ databaseUrl: env.DATABASE_URL || undefined, dataDir: env.DATA_DIR! });
  try {
    await database.migrate();
    return await use(database);
  } finally {
    await database.close();
  }
}
