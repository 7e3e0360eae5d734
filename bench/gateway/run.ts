/**
 * Gateway benchmark (run on demand: `npm run bench:gateway -- [--db pglite|postgres]`).
 * Starts the real server, signs up through the real API, tops up with a redemption code, then
 * drives metered `echo` calls and the unmetered `/v1/echo` baseline with the same load, and
 * checks the money: final balance = start − price × successful calls, exactly; ledger verifies.
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { Client } from "undici";
import { formatMoney, parseMoney } from "../../src/shared/money";
import { BenchClient } from "./client";
import { directCharger, type DirectCharger } from "./direct-charge";
import { load as loadOn, oneAtATime as oneAtATimeOn, summarize, type Run, type Sample, type Target } from "./load";
import { benchServer } from "./server";

const { values: args } = parseArgs({
  options: {
    db: { type: "string", default: "pglite" },
    calls: { type: "string", default: "20000" },
    /** The load alternates between the metered and the unmetered route this many times. */
    rounds: { type: "string", default: "4" },
    connections: { type: "string", default: "100" },
    keys: { type: "string", default: "10" },
    "log-level": { type: "string", default: "info" },
    /** Writes a V8 CPU profile of the server to this folder (open it in Chrome DevTools). */
    "cpu-prof": { type: "string" },
  },
});
/** A whole number ≥ 1 from the command line, or the run stops naming the option. */
function count(option: "calls" | "rounds" | "connections" | "keys"): number {
  const value = Number(args[option]);
  if (!Number.isInteger(value) || value < 1) {
    console.error(`--${option} must be a whole number of at least 1, not ${JSON.stringify(args[option])}`);
    process.exit(2);
  }
  return value;
}
if (args.db !== "pglite" && args.db !== "postgres") {
  console.error(`--db must be pglite or postgres, not ${JSON.stringify(args.db)}`);
  process.exit(2);
}
const ROUNDS = count("rounds");
const CALLS = Math.ceil(count("calls") / ROUNDS) * ROUNDS;
const CONNECTIONS = count("connections");
const KEYS = count("keys");
/** Calls per route at one connection, for the added latency. */
const ALONE_CALLS = Math.ceil(Math.min(CALLS, 2000) / ROUNDS) * ROUNDS;
const bench = await benchServer({ db: args.db, logLevel: args["log-level"]! });
const BASE = bench.base;
const dataDir = bench.dataDir;
const cli = bench.cli;
const startServer = () => bench.start(args["cpu-prof"] ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(args["cpu-prof"])}`] : []);

const codes = cli("codes", "create", "--amount", "100000", "--count", "1", "--force");
if (codes.code !== 0) throw new Error(`could not create a redemption code: ${codes.err}`);
const redemptionCode = codes.out.trim().split("\n")[0]!;

const server = await startServer();
const target: Target = { base: BASE, pid: server.pid!, postgres: args.db === "postgres" };
const load = (urlPath: string, keys: string[], amount: number) => loadOn(target, urlPath, keys, amount, CONNECTIONS);
const oneAtATime = (connection: Client, urlPath: string, key: string | null, amount: number, then?: () => Promise<void>) =>
  oneAtATimeOn(target, connection, urlPath, key, amount, then);
let connection: Client | null = null;
let charger: DirectCharger | null = null;
try {
  const client = new BenchClient(BASE, dataDir);
  await client.login(`139${String(Date.now()).slice(-8)}`);
  await client.redeem(redemptionCode);
  // One after another, so keys[0] is the user's first key, the one the floor's direct charges use.
  const keys: string[] = [];
  for (let i = 0; i < KEYS; i++) keys.push(await client.createKey(`bench ${i}`));
  const price = parseMoney((await client.json<{ tools: { id: string; price: string }[] }>("GET", "/api/v1/tools")).tools.find((t) => t.id === "echo")!.price);

  // The one-connection turns below use a connection of their own and, on PostgreSQL, a plain
  // client for the floor: the direct charge sent straight to the database after an unmetered call.
  connection = new Client(BASE);
  charger = bench.databaseUrl ? await directCharger(bench.databaseUrl, price) : null;
  await load("/v1/tools/echo", keys, 2000);
  await load("/v1/echo", [], 2000);
  await oneAtATime(connection, "/v1/tools/echo", keys[0]!, 200);
  await oneAtATime(connection, "/v1/echo", null, 200);
  if (charger) {
    await oneAtATime(connection, "/v1/echo", null, 200, charger.charge);
    await oneAtATime(connection, "/v1/echo", null, 200, charger.durableWrite);
  }
  const before = parseMoney(await client.balance());
  // The two routes take turns, so a stretch when this shared machine runs slow falls on both.
  const meteredSamples: Sample[] = [];
  const baselineSamples: Sample[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    meteredSamples.push(await load("/v1/tools/echo", keys, CALLS / ROUNDS));
    baselineSamples.push(await load("/v1/echo", [], CALLS / ROUNDS));
  }
  // One connection, one call after another, the routes taking turns again: the latency a metered
  // call adds when nothing queues, and on PostgreSQL the least it could add (the floor).
  const meteredAlone: Sample[] = [];
  const baselineAlone: Sample[] = [];
  const floorAlone: Sample[] = [];
  const durableWriteAlone: Sample[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    meteredAlone.push(await oneAtATime(connection, "/v1/tools/echo", keys[0]!, ALONE_CALLS / ROUNDS));
    baselineAlone.push(await oneAtATime(connection, "/v1/echo", null, ALONE_CALLS / ROUNDS));
    if (charger) {
      floorAlone.push(await oneAtATime(connection, "/v1/echo", null, ALONE_CALLS / ROUNDS, charger.charge));
      durableWriteAlone.push(await oneAtATime(connection, "/v1/echo", null, ALONE_CALLS / ROUNDS, charger.durableWrite));
    }
  }
  const metered = summarize("metered /v1/tools/echo", meteredSamples);
  const baseline = summarize("unmetered /v1/echo", baselineSamples);
  const alone = [summarize("metered, 1 connection", meteredAlone), summarize("unmetered, 1 connection", baselineAlone)] as const;
  const floor = charger ? summarize("unmetered + direct charge, 1 connection", floorAlone) : null;
  const durableWrite = charger ? summarize("unmetered + durable one-row insert, 1 connection", durableWriteAlone) : null;
  const after = parseMoney(await client.balance());

  const expected = before - price * BigInt(metered.ok + alone[0].ok + (floor?.ok ?? 0));
  console.log(`\ngateway benchmark on ${args.db} — ${CALLS} calls per route in ${ROUNDS} rounds, ${CONNECTIONS} connections, ${keys.length} keys, log level ${args["log-level"]}`);
  console.table([metered, baseline, ...alone, ...(floor && durableWrite ? [floor, durableWrite] : [])].map((r) => ({ ...r, requestsPerSecond: Math.round(r.requestsPerSecond) })));
  const ratio = metered.requestsPerSecond / baseline.requestsPerSecond;
  console.log(`metered / unmetered throughput: ${(ratio * 100).toFixed(1)}%`);
  const cpuOf = (r: Run) => r.serverCpuPerCallUs + r.postgresCpuPerCallUs;
  const cpuRatio = cpuOf(metered) / cpuOf(baseline);
  console.log(`CPU per call, metered / unmetered (server${args.db === "postgres" ? " + PostgreSQL" : ""}): ${cpuRatio.toFixed(2)}×`);
  const addedLatencyMs = alone[0].p50 - alone[1].p50;
  const latencyGoalMs = args.db === "postgres" ? 0.5 : 0.8;
  console.log(`added p50 latency at one connection: ${addedLatencyMs.toFixed(2)} ms (goal ≤ ${latencyGoalMs} ms)`);
  if (floor && durableWrite) {
    const floorMs = floor.p50 - alone[1].p50;
    const durableWriteMs = durableWrite.p50 - alone[1].p50;
    console.log(`  of which the floor, the same durable charge sent straight to PostgreSQL: ${floorMs.toFixed(2)} ms; the gateway's own part: at most ${(addedLatencyMs - floorMs).toFixed(2)} ms`);
    console.log(`  any durable write adds at least ${durableWriteMs.toFixed(2)} ms here (one row, no index, committed)`);
  }
  console.log(`balance: ${formatMoney(before)} → ${formatMoney(after)}; expected ${formatMoney(expected)}; difference ${formatMoney(after - expected)}`);

  server.kill("SIGTERM");
  await new Promise((r) => server.once("exit", r));
  const verify = cli("ledger", "verify");
  console.log(verify.out.trim() || verify.err.trim());

  const failures = [
    after !== expected && "money difference",
    verify.code !== 0 && "ledger does not verify",
    metered.errors > 0 && "metered calls errored",
    metered.other > 0 && "metered calls were refused",
    metered.requestsPerSecond < 3000 && "below 3,000 metered calls/s",
    ratio < 0.5 && "metered below 50% of unmetered",
    cpuRatio > 2 && "metered CPU per call over 2× unmetered",
    addedLatencyMs > latencyGoalMs && `over ${latencyGoalMs} ms added at one connection`,
  ].filter(Boolean);
  console.log(failures.length === 0 ? "all targets met" : `targets missed: ${failures.join(", ")}`);
  process.exitCode = failures.length === 0 ? 0 : 1;
} finally {
  await connection?.close();
  await charger?.close();
  if (server.exitCode === null) server.kill("SIGTERM");
  bench.cleanup();
}
