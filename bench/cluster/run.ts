/**
 * Gateway throughput of the compiled server on PostgreSQL and Redis with `WEB_CONCURRENCY=2`
 * against 1 (issue 14), started as `npm start` does (`npm run build` first). The two take turns
 * round by round, so a stretch when this shared machine runs slow falls on both. Run on demand:
 * `npm run bench:cluster [-- --calls 20000 --rounds 4 --connections 40]`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { systemClock } from "../../src/server/clock";
import { openPostgres } from "../../src/server/db/client";
import { freePort } from "../../src/server/testing/free-port";
import { startTestRedis } from "../../src/server/testing/redis-server";
import { emptyPostgresDatabase, PROJECT_NODE, ROOT, START_FLAGS } from "../../src/server/testing/server-process";
import { createUserWithSession } from "../../src/server/testing/users";
import { benchServerEnv } from "../gateway/server";

const { values: args } = parseArgs({
  options: {
    calls: { type: "string", default: "20000" },
    rounds: { type: "string", default: "4" },
    connections: { type: "string", default: "40" },
    keys: { type: "string", default: "20" },
  },
});
const CALLS = Number(args.calls);
const ROUNDS = Number(args.rounds);
const CONNECTIONS = Number(args.connections);
const KEYS = Number(args.keys);
const TICKS_PER_SECOND = 100;
const SERVER_JS = path.join(ROOT, "dist/server.js");
if (!fs.existsSync(SERVER_JS)) throw new Error("run `npm run build` first");

/** CPU time (user + system, every thread) of a process and its worker children, in ms. */
function treeCpuMs(pid: number): number {
  const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  const own = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  const ms = ((Number(own[11]) + Number(own[12])) * 1000) / TICKS_PER_SECOND;
  return ms + children.reduce((sum, child) => sum + treeCpuMs(child), 0);
}

async function start(workers: number, env: Record<string, string>, base: string): Promise<ChildProcess> {
  const child = spawn(PROJECT_NODE, [...START_FLAGS, SERVER_JS], { env: { ...env, WEB_CONCURRENCY: String(workers) }, stdio: ["ignore", "ignore", "inherit"] });
  for (let i = 0; i < 1200; i++) {
    try {
      if ((await fetch(`${base}/api/v1/health`)).ok) return child;
    } catch {
      /* not listening yet */
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill("SIGKILL");
  throw new Error(`the server with ${workers} workers did not start`);
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

interface Sample {
  calls: number;
  seconds: number;
  cpuMs: number;
  failed: number;
}

async function load(base: string, server: ChildProcess, keys: string[], amount: number): Promise<Sample> {
  let next = 0;
  const cpuBefore = treeCpuMs(server.pid!);
  let firstRequestAt = 0;
  let lastResponseAt = 0;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${base}/v1/tools/echo`,
        connections: CONNECTIONS,
        amount,
        method: "POST",
        body: JSON.stringify({ hello: "world", n: 42 }),
        setupClient: (client) => client.setHeaders({ "content-type": "application/json", authorization: `Bearer ${keys[next++ % keys.length]}` }),
      },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    instance.on("start", () => (firstRequestAt = performance.now()));
    instance.on("response", () => (lastResponseAt = performance.now()));
  });
  // autocannon ends a run on its once-a-second tick: the run lasts from its start to its last response.
  return { calls: result["2xx"], seconds: (lastResponseAt - firstRequestAt) / 1000, cpuMs: treeCpuMs(server.pid!) - cpuBefore, failed: result.non2xx + result.errors + result.timeouts };
}

const database = await emptyPostgresDatabase();
const redis = await startTestRedis();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-bench-cluster-"));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const env: Record<string, string> = {
  ...benchServerEnv({ dataDir, port, logLevel: "warn" }),
  DATABASE_URL: database.url,
  REDIS_URL: redis.url,
};
const samples = new Map<number, Sample[]>([
  [1, []],
  [2, []],
]);
try {
  // The first start migrates; the user and keys are made through the running server.
  let server = await start(1, env, base);
  const setup = openPostgres(database.url, 1);
  const user = await createUserWithSession({ database: setup, clock: systemClock }, { balance: "100000" });
  await setup.close();
  const keys: string[] = [];
  for (let i = 0; i < KEYS; i++) {
    const response = await fetch(`${base}/api/v1/console/keys`, { method: "POST", headers: { ...user.headers, "content-type": "application/json" }, body: JSON.stringify({ name: `bench ${i}` }) });
    if (!response.ok) throw new Error(`could not create a key: HTTP ${response.status} ${await response.text()}`);
    keys.push(((await response.json()) as { secret: string }).secret);
  }
  await stop(server);
  for (let round = 0; round < ROUNDS; round++) {
    for (const workers of round % 2 === 0 ? [1, 2] : [2, 1]) {
      server = await start(workers, env, base);
      await load(base, server, keys, 2000);
      samples.get(workers)!.push(await load(base, server, keys, CALLS / ROUNDS));
      await stop(server);
    }
  }
} finally {
  await redis.stop();
  await database.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

const rate = (s: Sample) => s.calls / s.seconds;
console.log(`Node ${process.versions.node}, ${os.cpus().length} CPUs, load average ${os.loadavg().map((l) => l.toFixed(1)).join(" / ")}`);
console.log(`${CALLS} metered calls per setting in ${ROUNDS} alternating rounds, ${CONNECTIONS} connections, ${KEYS} keys, PostgreSQL + Redis\n`);
console.log("| WEB_CONCURRENCY | calls/s per round | calls/s overall | server CPU per call | failed |\n|---|---|---|---|---|");
for (const [workers, list] of samples) {
  const calls = list.reduce((sum, s) => sum + s.calls, 0);
  const seconds = list.reduce((sum, s) => sum + s.seconds, 0);
  const cpuMs = list.reduce((sum, s) => sum + s.cpuMs, 0);
  const failed = list.reduce((sum, s) => sum + s.failed, 0);
  console.log(`| ${workers} | ${list.map((s) => rate(s).toFixed(0)).join(", ")} | ${(calls / seconds).toFixed(0)} | ${((cpuMs * 1000) / calls).toFixed(0)} µs | ${failed} |`);
}
const [one, two] = [samples.get(1)!, samples.get(2)!];
const ratios = one.map((s, i) => rate(two[i]!) / rate(s));
console.log(`\n2 workers / 1, per round: ${ratios.map((r) => r.toFixed(2)).join(", ")}`);
