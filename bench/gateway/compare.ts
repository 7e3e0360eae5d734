/**
 * Two builds of the server, side by side in one run (`npm run bench:compare -- --a DIR --b DIR`):
 * each on its own database, the same metered `echo` load taking turns between them, so a slow
 * minute of this shared machine falls on both. Prints throughput, latency and CPU time per call of
 * each, B against A, and checks each one's money exactly. For a change measured against the build
 * before it (bench/gateway/README.md, "Comparing two builds"). Each DIR must be the `dist/` of its
 * own checkout (a `git worktree` of the commit before): a build migrates with the `drizzle/` folder
 * of the checkout it sits in, so a `dist/` copied into another checkout runs that one's SQL.
 * `--runs N` makes the whole comparison N times over, on fresh servers and databases, and ends with
 * each figure's N values and their median: one run's ratio moves by ±10% with this machine's minute.
 * Every other run makes B's server first and lets it lead the rounds, so a side's position (which an
 * A/A series on PGlite showed to be worth about 5%) falls on both.
 * `--batch-sizes` turns the metrics on for both servers and prints the mean size of each one's charge
 * batches at 100 connections (a batch's fixed cost is most of a small batch's).
 */
import { parseArgs } from "node:util";
import { Client } from "undici";
import { formatMoney, parseMoney } from "../../src/shared/money";
import { BenchClient } from "./client";
import { load, oneAtATime, summarize, type Sample, type Target } from "./load";
import { benchServer } from "./server";

const { values: args } = parseArgs({
  options: {
    a: { type: "string" },
    b: { type: "string", default: "dist" },
    "label-a": { type: "string", default: "A" },
    "label-b": { type: "string", default: "B" },
    /** Environment for one side only, as NAME=VALUE, repeatable: the same build with a setting on and off. */
    "env-a": { type: "string", multiple: true, default: [] },
    "env-b": { type: "string", multiple: true, default: [] },
    db: { type: "string", default: "pglite" },
    calls: { type: "string", default: "20000" },
    rounds: { type: "string", default: "6" },
    /** Whole comparisons one after another, each on fresh servers and databases; with more than one, the medians of their ratios at the end. */
    runs: { type: "string", default: "1" },
    /** Both servers with METRICS_TOKEN set, to print the mean size of their charge batches at 100 connections (tollgate_charge_batch_size). */
    "batch-sizes": { type: "boolean", default: false },
    connections: { type: "string", default: "100" },
    keys: { type: "string", default: "10" },
    /**
     * `<tool>/<package>`: B's user is granted a lot of this package before the run, so B's calls are
     * paid from it (its catalog, through --env-b TOOLS_CATALOG=…, gives echo the package): B's
     * balance must not move, and the lot must have lost exactly the calls served. --grant-a does
     * the same for A (two builds of the plans path, one against the other).
     */
    "grant-a": { type: "string" },
    "grant-b": { type: "string" },
  },
});
if (!args.a) {
  console.error("--a must name a build folder (the compiled dist/ of the build to compare against)");
  process.exit(2);
}
const A_DIST = args.a;
/** NAME=VALUE pairs from --env-a or --env-b. */
function envOf(option: "env-a" | "env-b"): Record<string, string> {
  return Object.fromEntries(
    args[option]!.map((pair) => {
      const at = pair.indexOf("=");
      if (at < 1) {
        console.error(`--${option} takes NAME=VALUE, not ${JSON.stringify(pair)}`);
        process.exit(2);
      }
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}
if (args.db !== "pglite" && args.db !== "postgres") {
  console.error(`--db must be pglite or postgres, not ${JSON.stringify(args.db)}`);
  process.exit(2);
}
const whole = (option: "calls" | "rounds" | "connections" | "keys" | "runs") => {
  const value = Number(args[option]);
  if (!Number.isInteger(value) || value < 1) {
    console.error(`--${option} must be a whole number of at least 1`);
    process.exit(2);
  }
  return value;
};
const ROUNDS = whole("rounds");
const RUNS = whole("runs");
const CALLS = Math.ceil(whole("calls") / ROUNDS) * ROUNDS;
const CONNECTIONS = whole("connections");
const ALONE_CALLS = Math.ceil(Math.min(CALLS, 3000) / ROUNDS) * ROUNDS;
const db = args.db;

const METRICS_TOKEN = "bench-metrics-token-0123456789";

/** The server's charge batches so far, from its metrics: how many, and the calls they held. */
async function chargeBatches(base: string): Promise<{ batches: number; calls: number }> {
  const text = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const value = (name: string) => Number(text.match(new RegExp(`^${name} (\\S+)$`, "m"))?.[1] ?? Number.NaN);
  return { batches: value("tollgate_charge_batch_size_count"), calls: value("tollgate_charge_batch_size_sum") };
}

/** One build's server, signed up, topped up and holding its keys. */
async function prepared(label: string, dist: string, database: string, env: Record<string, string>, grant?: string) {
  const bench = await benchServer({ db, logLevel: "warn", dist, database, env: args["batch-sizes"] ? { ...env, METRICS_TOKEN } : env });
  const codes = bench.cli("codes", "create", "--amount", "100000", "--count", "1", "--force");
  if (codes.code !== 0) throw new Error(`${label}: could not create a redemption code: ${codes.err}`);
  const server = await bench.start();
  const client = new BenchClient(bench.base, bench.dataDir);
  const phone = `139${String(Date.now()).slice(-8)}`;
  await client.login(phone);
  await client.redeem(codes.out.trim().split("\n")[0]!);
  if (grant) {
    const granted = bench.cli("packages", "grant", phone, "--package", grant);
    if (granted.code !== 0) throw new Error(`${label}: could not grant ${grant}: ${granted.err}`);
  }
  const keys: string[] = [];
  for (let i = 0; i < whole("keys"); i++) keys.push(await client.createKey(`bench ${i}`));
  const price = parseMoney((await client.json<{ tools: { id: string; price: string }[] }>("GET", "/api/v1/tools")).tools.find((t) => t.id === "echo")!.price);
  const target: Target = { base: bench.base, pid: server.pid!, postgres: db === "postgres" };
  return { label, phone, grant, bench, server, client, keys, price, target, connection: new Client(bench.base), many: [] as Sample[], alone: [] as Sample[] };
}

/** B against A in one comparison: throughput and CPU per call as ratios, the one-connection p50 as a difference in ms. */
type RunResult = { throughput: number; cpu: number; p50: number; meanBatches: number[]; problems: number };

/** One comparison: both builds' servers made afresh, loaded in turns, their money checked. */
async function compareOnce(swapped: boolean): Promise<RunResult> {
  const prepareA = () => prepared(args["label-a"]!, A_DIST, swapped ? "tollgate_bench_b" : "tollgate_bench_a", envOf("env-a"), args["grant-a"]);
  const prepareB = () => prepared(args["label-b"]!, args.b!, swapped ? "tollgate_bench_a" : "tollgate_bench_b", envOf("env-b"), args["grant-b"]);
  const [first, second] = swapped ? [await prepareB(), await prepareA()] : [await prepareA(), await prepareB()];
  const sides = (swapped ? [second, first] : [first, second]) as [typeof first, typeof first];
  /** The sides in the order they were made, which leads the first round. */
  const started = [first, second];
  try {
    for (const side of sides) {
      await load(side.target, "/v1/tools/echo", side.keys, 2000, CONNECTIONS);
      await oneAtATime(side.target, side.connection, "/v1/tools/echo", side.keys[0]!, 300);
    }
    const before = await Promise.all(sides.map(async (side) => parseMoney(await side.client.balance())));
    const lotUnits = (side: (typeof sides)[number]) => {
      const listed = side.bench.cli("packages", "list", side.phone, "--json");
      return (JSON.parse(listed.out) as { source: string; unitsLeft: number }[]).filter((lot) => lot.source === "grant").reduce((sum, lot) => sum + lot.unitsLeft, 0);
    };
    const unitsBefore = sides.map((side) => (side.grant ? lotUnits(side) : 0));
    const batchesBefore = args["batch-sizes"] ? await Promise.all(sides.map((side) => chargeBatches(side.bench.base))) : [];
    for (let round = 0; round < ROUNDS; round++) {
      // Which goes first changes each round, so neither always follows the other's load.
      for (const side of round % 2 === 0 ? started : [...started].reverse()) side.many.push(await load(side.target, "/v1/tools/echo", side.keys, CALLS / ROUNDS, CONNECTIONS));
    }
    const batchesAfter = args["batch-sizes"] ? await Promise.all(sides.map((side) => chargeBatches(side.bench.base))) : [];
    const meanBatches = batchesAfter.map((after, i) => (after.calls - batchesBefore[i]!.calls) / (after.batches - batchesBefore[i]!.batches));
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of round % 2 === 0 ? started : [...started].reverse()) {
        side.alone.push(await oneAtATime(side.target, side.connection, "/v1/tools/echo", side.keys[0]!, ALONE_CALLS / ROUNDS));
      }
    }
    const many = sides.map((side) => summarize(`${side.label}, ${CONNECTIONS} connections`, side.many));
    const alone = sides.map((side) => summarize(`${side.label}, 1 connection`, side.alone));
    console.log(`\n${sides[0].label} (${args.a}) against ${sides[1].label} (${args.b}) on ${db}: ${CALLS} metered calls each in ${ROUNDS} alternating rounds, then ${ALONE_CALLS} at one connection`);
    console.table([...many, ...alone].map((r) => ({ ...r, requestsPerSecond: Math.round(r.requestsPerSecond) })));
    const cpu = (r: (typeof many)[number]) => r.serverCpuPerCallUs + r.postgresCpuPerCallUs;
    console.log(`throughput ${sides[1].label} / ${sides[0].label}: ${((many[1]!.requestsPerSecond / many[0]!.requestsPerSecond) * 100).toFixed(1)}%`);
    console.log(`CPU per call ${sides[1].label} / ${sides[0].label}: ${(cpu(many[1]!) / cpu(many[0]!)).toFixed(3)}× (${cpu(many[0]!)} → ${cpu(many[1]!)} µs)`);
    const result: RunResult = {
      throughput: many[1]!.requestsPerSecond / many[0]!.requestsPerSecond,
      cpu: cpu(many[1]!) / cpu(many[0]!),
      p50: alone[1]!.p50 - alone[0]!.p50,
      meanBatches,
      problems: 0,
    };
    if (args["batch-sizes"]) console.log(`mean charge batch at ${CONNECTIONS} connections: ${sides.map((side, i) => `${side.label} ${meanBatches[i]!.toFixed(1)} calls`).join(", ")}`);
    console.log(`p50 at one connection: ${sides[1].label} − ${sides[0].label} = ${result.p50.toFixed(3)} ms`);

    let problems = 0;
    for (const [i, side] of sides.entries()) {
      const after = parseMoney(await side.client.balance());
      const served = side.many.concat(side.alone).reduce((n, s) => n + s.ok, 0);
      // Calls paid from a granted lot leave the balance alone and take one unit each from the lot.
      const expected = side.grant ? before[i]! : before[i]! - side.price * BigInt(served);
      const unitsMissing = side.grant ? unitsBefore[i]! - served - lotUnits(side) : 0;
      const errors = many[i]!.errors + many[i]!.other + alone[i]!.other;
      side.server.kill("SIGTERM");
      await new Promise((resolve) => side.server.once("exit", resolve));
      const verify = side.bench.cli("ledger", "verify");
      const units = side.grant ? `, lot units difference ${unitsMissing}` : "";
      console.log(`${side.label}: balance difference ${formatMoney(after - expected)}${units}, ${errors} calls refused or failed; ${verify.out.trim() || verify.err.trim()}`);
      if (after !== expected || unitsMissing !== 0 || errors > 0 || verify.code !== 0) problems++;
    }
    return { ...result, problems };
  } finally {
    for (const side of sides) {
      await side.connection.close();
      if (side.server.exitCode === null) side.server.kill("SIGTERM");
      side.bench.cleanup();
    }
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const results: RunResult[] = [];
for (let run = 1; run <= RUNS; run++) {
  if (RUNS > 1) console.log(`\nrun ${run} of ${RUNS}, ${new Date().toISOString().slice(11, 19)} UTC`);
  // Every other run makes and leads with B: an A/A run on PGlite favoured the second-made side by about 5%.
  results.push(await compareOnce(run % 2 === 0));
}
if (RUNS > 1) {
  const [b, a] = [args["label-b"], args["label-a"]];
  console.log(`\n${RUNS} runs on ${db}, ${b} against ${a}:`);
  console.log(`throughput ${b} / ${a}: ${results.map((r) => (r.throughput * 100).toFixed(1)).join(", ")}%; median ${(median(results.map((r) => r.throughput)) * 100).toFixed(1)}%`);
  console.log(`CPU per call ${b} / ${a}: ${results.map((r) => r.cpu.toFixed(3)).join(", ")}×; median ${median(results.map((r) => r.cpu)).toFixed(3)}×`);
  console.log(`p50 at one connection, ${b} − ${a}: ${results.map((r) => r.p50.toFixed(3)).join(", ")} ms; median ${median(results.map((r) => r.p50)).toFixed(3)} ms`);
  if (args["batch-sizes"]) console.log(`mean charge batch, ${a} / ${b}: ${results.map((r) => r.meanBatches.map((m) => m.toFixed(1)).join(" / ")).join(", ")} calls`);
}
process.exitCode = results.every((r) => r.problems === 0) ? 0 : 1;
