/**
 * How near Node's floor the gateway's unmetered path is (issue 44; `npm run bench:floor`): a bare
 * `node:http` echo server and Tollgate's `POST /v1/echo` (UNMETERED_ECHO=true, the compiled server
 * as `npm start` runs it), both on the project's Node 24, the same load (autocannon, the same JSON
 * body) taking turns in alternating rounds. Prints requests/s, the server's CPU time per request and
 * Tollgate's share of the bare server's throughput. `--dist DIR` (repeatable) runs several builds
 * against the same bare server; `--cpu-prof DIR` writes a V8 CPU profile of each Tollgate server;
 * `--bare-headers` adds a second bare server that answers with the first build's response headers
 * (security headers, CSP, a request id), the floor for a server that must send them; `--fastify`
 * adds the project's Fastify with one echo route and nothing else (fastify-echo.mjs), the floor of
 * the framework Tollgate's routes run in.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { parseArgs } from "node:util";
import { PROJECT_NODE } from "../../src/server/testing/server-process";
import { load, summarize, type Sample, type Target } from "../gateway/load";
import { benchServer, type BenchServer } from "../gateway/server";

const { values: args } = parseArgs({
  options: {
    dist: { type: "string", multiple: true, default: ["dist"] },
    calls: { type: "string", default: "30000" },
    rounds: { type: "string", default: "6" },
    connections: { type: "string", default: "100" },
    /** Environment for every Tollgate server, as NAME=VALUE, repeatable (METRICS_TOKEN=… for metrics on). */
    env: { type: "string", multiple: true, default: [] },
    "cpu-prof": { type: "string" },
    "bare-headers": { type: "boolean", default: false },
    fastify: { type: "boolean", default: false },
  },
});
function whole(option: "calls" | "rounds" | "connections"): number {
  const value = Number(args[option]);
  if (!Number.isInteger(value) || value < 1) {
    console.error(`--${option} must be a whole number of at least 1, not ${JSON.stringify(args[option])}`);
    process.exit(2);
  }
  return value;
}
const ROUNDS = whole("rounds");
const CALLS = Math.ceil(whole("calls") / ROUNDS) * ROUNDS;
const CONNECTIONS = whole("connections");
const env = Object.fromEntries(
  args.env!.map((pair) => {
    const at = pair.indexOf("=");
    if (at < 1) {
      console.error(`--env takes NAME=VALUE, not ${JSON.stringify(pair)}`);
      process.exit(2);
    }
    return [pair.slice(0, at), pair.slice(at + 1)];
  }),
);

/** Node's flags for a V8 CPU profile of one server, in a folder of its own under --cpu-prof. */
function profileFlags(name: string): string[] {
  return args["cpu-prof"] ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(args["cpu-prof"], name)}`] : [];
}

/** One server under test: the bare floor or a Tollgate build. */
interface Side {
  label: string;
  process: ChildProcess;
  target: Target;
  samples: Sample[];
  bench?: BenchServer;
}

/** A floor server of this folder (`script`), which prints its port once it listens. */
async function floorServer(label: string, script: string, profileName: string, env: NodeJS.ProcessEnv = process.env): Promise<Side> {
  const child = spawn(PROJECT_NODE, [...profileFlags(profileName), path.join(import.meta.dirname, script)], { stdio: ["ignore", "pipe", "inherit"], env });
  const [line] = (await once(child.stdout!.setEncoding("utf8"), "data")) as [string];
  const base = `http://127.0.0.1:${Number(line.trim())}`;
  return { label, process: child, target: { base, pid: child.pid!, postgres: false }, samples: [] };
}

/** `headers`: what the bare server adds to each answer (bare-echo.mjs), a fresh x-request-id if named. */
function bareServer(headers?: Record<string, string>): Promise<Side> {
  return headers
    ? floorServer("bare + tollgate's headers", "bare-echo.mjs", "bare-headers", { ...process.env, BARE_HEADERS: JSON.stringify(headers) })
    : floorServer("bare node:http", "bare-echo.mjs", "bare");
}

/** The headers a Tollgate server answers its echo with, but those every echo sets for itself. */
async function echoHeaders(side: Side): Promise<Record<string, string>> {
  const answer = await fetch(`${side.target.base}/v1/echo`, { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
  await answer.arrayBuffer();
  const own = new Set(["content-type", "content-length", "date", "connection", "keep-alive"]);
  return Object.fromEntries([...answer.headers].filter(([name]) => !own.has(name)));
}

async function tollgate(dist: string): Promise<Side> {
  const bench = await benchServer({ db: "pglite", logLevel: "info", dist, env });
  const child = await bench.start(profileFlags(`tollgate-${path.basename(dist)}`));
  return { label: `tollgate ${dist}`, process: child, target: { base: bench.base, pid: child.pid!, postgres: false }, samples: [], bench };
}

const sides: Side[] = [await bareServer()];
try {
  for (const dist of args.dist!) sides.push(await tollgate(dist));
  if (args["bare-headers"]) {
    const headers = await echoHeaders(sides[1]!);
    const bytes = Object.entries(headers).reduce((sum, [name, value]) => sum + name.length + value.length + 4, 0);
    console.log(`the second bare server adds ${Object.keys(headers).length} headers (${bytes} bytes): ${Object.keys(headers).join(", ")}`);
    sides.push(await bareServer(headers));
  }
  if (args.fastify) sides.push(await floorServer("fastify, one route", "fastify-echo.mjs", "fastify"));
  const urlOf = (side: Side) => `${side.bench ? "/v1/echo" : "/"}`;
  for (const side of sides) await load(side.target, urlOf(side), [], 3000, CONNECTIONS);
  for (let round = 0; round < ROUNDS; round++) {
    // Each round starts with a different server, so none always runs after the same one.
    const order = sides.map((_, i) => sides[(i + round) % sides.length]!);
    for (const side of order) side.samples.push(await load(side.target, urlOf(side), [], CALLS / ROUNDS, CONNECTIONS));
  }
  const runs = sides.map((side) => summarize(side.label, side.samples));
  console.log(`\n${CALLS} requests per server in ${ROUNDS} alternating rounds, ${CONNECTIONS} connections, Node ${PROJECT_NODE}`);
  console.table(runs.map((r) => ({ label: r.label, requestsPerSecond: Math.round(r.requestsPerSecond), serverCpuPerCallUs: r.serverCpuPerCallUs, clientCpuPerCallUs: r.clientCpuPerCallUs, p50: r.p50, p99: r.p99, ok: r.ok, errors: r.errors + r.other })));
  const bare = runs[0]!;
  for (const run of runs.slice(1)) {
    console.log(
      `${run.label}: ${((run.requestsPerSecond / bare.requestsPerSecond) * 100).toFixed(1)}% of bare node:http's requests/s; CPU per request ${(run.serverCpuPerCallUs / bare.serverCpuPerCallUs).toFixed(2)}× (${bare.serverCpuPerCallUs} → ${run.serverCpuPerCallUs} µs)`,
    );
  }
  process.exitCode = runs.some((r) => r.errors + r.other > 0) ? 1 : 0;
} finally {
  for (const side of sides) {
    side.process.kill("SIGTERM");
    if (side.process.exitCode === null) await once(side.process, "exit");
    side.bench?.cleanup();
  }
}
