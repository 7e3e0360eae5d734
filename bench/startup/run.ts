/**
 * Ready time and idle memory of one server process (issue 14): the compiled server (`npm run
 * build` first) started as `npm start` does, on PGlite in a new DATA_DIR, on that same folder
 * again, and on an already migrated PostgreSQL database. Run on demand: `npm run bench:startup`.
 *
 * Ready time is from spawn to the "ready" log line; the CPU time the process spent until then
 * (user + system, all threads) is given beside it, since a busy shared machine stretches the
 * first and hardly the second. Idle RSS is read from /proc after IDLE_MS with no requests.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { emptyPostgresDatabase, PROJECT_NODE, ROOT, START_FLAGS } from "../../src/server/testing/server-process";

const RUNS = Number(process.env.RUNS ?? 3);
/** Another build to measure (`DIST=path/to/dist`), to compare two builds in alternating runs. */
const SERVER_JS = path.resolve(ROOT, process.env.DIST ?? "dist", "server.js");
const IDLE_MS = 5_000;
const TICKS_PER_SECOND = 100;

interface Sample {
  readyMs: number;
  cpuMs: number;
  rssMb: number;
}

function cpuMsOf(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

function rssMbOf(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
  return kb / 1024;
}

async function measure(env: Record<string, string>): Promise<Sample> {
  const began = performance.now();
  const child = spawn(PROJECT_NODE, [...START_FLAGS, SERVER_JS], {
    env: { ...process.env, NODE_ENV: "production", SESSION_SECRET: "bench-secret-0123456789abcdef0123456789", PORT: "0", LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const readyMs = await new Promise<number>((resolve, reject) => {
    let text = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      text += chunk;
      if (text.includes('"msg":"ready"')) resolve(performance.now() - began);
    });
    child.once("exit", (code) => reject(new Error(`the server exited with ${code}: ${text}`)));
  });
  const cpuMs = cpuMsOf(child.pid!);
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
  const rssMb = rssMbOf(child.pid!);
  child.kill("SIGTERM");
  await new Promise((resolve) => child.once("exit", resolve));
  return { readyMs, cpuMs, rssMb };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function row(name: string, samples: Sample[]): string {
  const m = (pick: (s: Sample) => number) => median(samples.map(pick));
  return `| ${name} | ${(m((s) => s.readyMs) / 1000).toFixed(2)} s | ${(m((s) => s.cpuMs) / 1000).toFixed(2)} s | ${m((s) => s.rssMb).toFixed(0)} MB |`;
}

if (!fs.existsSync(SERVER_JS)) throw new Error(`no ${SERVER_JS}: run \`npm run build\` first`);
const fresh: Sample[] = [];
const again: Sample[] = [];
for (let i = 0; i < RUNS; i++) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-startup-"));
  fresh.push(await measure({ DATA_DIR: dataDir, DATABASE_URL: "" }));
  again.push(await measure({ DATA_DIR: dataDir, DATABASE_URL: "" }));
  fs.rmSync(dataDir, { recursive: true, force: true });
}
const database = await emptyPostgresDatabase();
const postgresDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-startup-"));
const postgres: Sample[] = [];
try {
  // The first start migrates; the measured ones find the schema in place, as a restart does.
  await measure({ DATABASE_URL: database.url, DATA_DIR: postgresDataDir });
  for (let i = 0; i < RUNS; i++) postgres.push(await measure({ DATABASE_URL: database.url, DATA_DIR: postgresDataDir }));
} finally {
  await database.drop();
  fs.rmSync(postgresDataDir, { recursive: true, force: true });
}
console.log(`${path.relative(ROOT, SERVER_JS)}, Node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg().map((l) => l.toFixed(1)).join(" / ")}, median of ${RUNS}`);
console.log("| start | ready | CPU until ready | idle RSS |\n|---|---|---|---|");
console.log(row("PGlite, new DATA_DIR", fresh));
console.log(row("PGlite, existing DATA_DIR", again));
console.log(row("PostgreSQL, migrated", postgres));
