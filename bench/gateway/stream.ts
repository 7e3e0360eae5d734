/**
 * Streaming benchmark (on demand: `npm run bench:stream -- [--db pglite|postgres]`).
 * The real server sells three HTTP tools in front of one local fake upstream, a process of its
 * own (stream-upstream.mjs): `sse` (server-sent events, the first at once, the last reporting
 * usage), `sse-units` (the same stream sold per token) and `big` (a 100 MB chunked binary body).
 * In alternating rounds it measures, through the gateway and against the upstream directly: time
 * to the first byte of the body, the server's CPU per streamed call per unit and per call, and the
 * throughput of the 100 MB relay with the server's CPU per MB relayed; and a streamed chat
 * completion at the SDK's defaults through `llm` (an OpenAI-compatible tool, issue 36) against the
 * same through `llm-plain` (a plain HTTP tool): the first byte and the server's CPU per call. Then
 * it checks the money exactly and the ledger.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { parseArgs } from "node:util";
import { formatMoney, parseMoney } from "../../src/shared/money";
import { PROJECT_NODE } from "../../src/server/testing/server-process";
import { BenchClient } from "./client";
import { postgresCpuMicros, processCpuMicros } from "./cpu";
import { benchServer } from "./server";

const { values: args } = parseArgs({
  options: {
    db: { type: "string", default: "pglite" },
    rounds: { type: "string", default: "4" },
    /** Time-to-first-byte calls per route per round. */
    calls: { type: "string", default: "100" },
    "big-mb": { type: "string", default: "100" },
    /** Big bodies per route per round: the relay's MB/s swings from one body to the next. */
    relays: { type: "string", default: "1" },
  },
});
if (args.db !== "pglite" && args.db !== "postgres") {
  console.error(`--db must be pglite or postgres, not ${JSON.stringify(args.db)}`);
  process.exit(2);
}
const [ROUNDS, CALLS, BIG_MB, RELAYS] = (["rounds", "calls", "big-mb", "relays"] as const).map((option) => {
  const value = Number(args[option]);
  if (!Number.isInteger(value) || value < 1) {
    console.error(`--${option} must be a whole number of at least 1, not ${JSON.stringify(args[option])}`);
    process.exit(2);
  }
  return value;
}) as [number, number, number, number];
const BIG_BYTES = BIG_MB * 1024 * 1024;

// The upstream runs in a process of its own, as a real one does: in the benchmark's own process
// the direct calls would skip the cross-process hop every real call makes, and on this VM a hop
// to a process that has been idle for a few milliseconds costs about 0.3 ms of wake-up alone.
/** What every streamed call gets: a first event, then the usage an OpenAI-compatible API reports last. */
const SSE_EVENTS = ['data: {"first":true}\n\n', 'data: {"usage":{"total_tokens":40}}\n\n', "data: [DONE]\n\n"];
const SSE_BYTES = Buffer.byteLength(SSE_EVENTS.join(""));
/**
 * A streamed chat completion as an OpenAI-compatible API sends it to the SDK's default request (no
 * `include_usage`), and the usage chunk it adds when asked, which the gateway asks for and takes off.
 */
const chatChunk = (value: object) => `data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 1_700_000_000, model: "bench", ...value })}\n\n`;
const LLM_EVENTS = [
  chatChunk({ choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] }),
  ...["Toll", " gates", " meter", " roads", "."].map((content) => chatChunk({ choices: [{ index: 0, delta: { content }, finish_reason: null }] })),
  chatChunk({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }),
  "data: [DONE]\n\n",
];
const LLM_BYTES = Buffer.byteLength(LLM_EVENTS.join(""));
const LLM_USAGE = { prompt_tokens: 10, completion_tokens: 40, total_tokens: 50 };
/** 10 input tokens at ¥10.00/1M and 40 output tokens at ¥20.00/1M: 100 + 800 micro-units. */
const LLM_CALL_MICROS = 900n;
const LLM_BODY = JSON.stringify({ model: "bench", messages: [{ role: "user", content: "Tell me about toll gates." }], stream: true, max_tokens: 50 });
const upstream = spawn(PROJECT_NODE, [path.join(import.meta.dirname, "stream-upstream.mjs")], {
  env: {
    ...process.env,
    BIG_BYTES: String(BIG_BYTES),
    SSE_EVENTS: JSON.stringify(SSE_EVENTS),
    LLM_EVENTS: JSON.stringify(LLM_EVENTS),
    LLM_USAGE_EVENT: chatChunk({ choices: [], usage: LLM_USAGE }),
  },
  stdio: ["ignore", "pipe", "inherit"],
});
const [portLine] = (await once(upstream.stdout!, "data")) as [Buffer];
const direct = `http://127.0.0.1:${portLine.toString().trim()}`;

const catalog = path.join(fs.mkdtempSync(path.join(fs.realpathSync("/tmp"), "stream-bench-")), "tools.json");
const tool = (id: string, handler = {}) => ({ id, name: id, description: `${id} bench tool`, category: "bench", price: "0.0001", rateLimitPerMinute: 1_000_000, handler: { type: "http", url: `${direct}/${id}`, ...handler } });
/** The same stream sold per unit: a hold of 100 tokens, settled at the 40 its last event reports. */
const perUnit = { ...tool("sse-units", { unitsPath: "usage.total_tokens" }), price: "0.000001", unit: "token", maxUnitsPerCall: 100 };
/** The same chat stream through an OpenAI-compatible tool priced per model, and through a plain HTTP tool priced per call. */
const llm = { ...tool("llm", { protocol: "openai", models: { bench: { input: "10.00", output: "20.00" } } }), price: undefined };
fs.writeFileSync(catalog, JSON.stringify({ tools: [tool("sse"), perUnit, tool("big"), llm, tool("llm-plain")] }));

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
/** One GET (or POST of `body`): ms to the first body byte, ms to the end, bytes, and whether it ended complete. */
async function fetchTimed(url: string, key?: string, body?: string) {
  const started = performance.now();
  const headers = { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body ? { "content-type": "application/json" } : {}) };
  const req = http.request(url, { agent, method: body ? "POST" : "GET", headers });
  req.end(body);
  const [res] = (await once(req, "response")) as [http.IncomingMessage];
  let first = 0;
  let bytes = 0;
  for await (const chunk of res) {
    if (bytes === 0) first = performance.now() - started;
    bytes += (chunk as Buffer).length;
  }
  return { status: res.statusCode, first, total: performance.now() - started, bytes, complete: res.complete };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const bench = await benchServer({ db: args.db, logLevel: "warn", env: { TOOLS_CATALOG: catalog } });
const codes = bench.cli("codes", "create", "--amount", "1000", "--count", "1");
if (codes.code !== 0) throw new Error(`could not create a redemption code: ${codes.err}`);
const server = await bench.start();
try {
  const client = new BenchClient(bench.base, bench.dataDir);
  await client.login(`139${String(Date.now()).slice(-8)}`);
  await client.redeem(codes.out.trim().split("\n")[0]!);
  const key = await client.createKey("stream bench");
  const gateway = (id: string) => `${bench.base}/v1/tools/${id}`;

  const failures: string[] = [];
  const check = (result: Awaited<ReturnType<typeof fetchTimed>>, expectedBytes: number, label: string) => {
    if (result.status !== 200 || !result.complete || result.bytes !== expectedBytes) failures.push(`${label}: ${result.status}, ${result.bytes} bytes`);
  };
  // Warm-up: connections, JIT, the key cache.
  for (let i = 0; i < 20; i++) {
    check(await fetchTimed(gateway("sse"), key), SSE_BYTES, "warm-up");
    check(await fetchTimed(gateway("sse-units"), key), SSE_BYTES, "warm-up");
    check(await fetchTimed(`${direct}/sse`), SSE_BYTES, "warm-up");
    check(await fetchTimed(`${gateway("llm")}/chat/completions`, key, LLM_BODY), LLM_BYTES, "warm-up");
    check(await fetchTimed(`${gateway("llm-plain")}/chat/completions`, key, LLM_BODY), LLM_BYTES, "warm-up");
  }
  const before = parseMoney(await client.balance());
  let perCallCharges = 0;
  let perUnitCalls = 0;
  const ttfb = { gateway: [] as number[], direct: [] as number[] };
  const throughput = { gateway: [] as number[], direct: [] as number[] };
  /** CPU spent on the server's side (the server, and PostgreSQL's processes when it is the database), in µs per route. */
  const cpu = { perCall: 0, perUnit: 0, relay: 0, llm: 0, llmPlain: 0 };
  const llmTtfb = { openai: [] as number[], plain: [] as number[] };
  let llmCalls = 0;
  const serverSideCpu = () => processCpuMicros(server.pid!) + (args.db === "postgres" ? postgresCpuMicros() : 0);
  for (let round = 0; round < ROUNDS; round++) {
    // The direct calls between the gateway's cost the server nothing: the CPU is the gateway calls'.
    let cpuBefore = serverSideCpu();
    for (let i = 0; i < CALLS; i++) {
      const viaGateway = await fetchTimed(gateway("sse"), key);
      check(viaGateway, SSE_BYTES, "sse via gateway");
      ttfb.gateway.push(viaGateway.first);
      perCallCharges++;
      const straight = await fetchTimed(`${direct}/sse`);
      ttfb.direct.push(straight.first);
    }
    cpu.perCall += serverSideCpu() - cpuBefore;
    cpuBefore = serverSideCpu();
    for (let i = 0; i < CALLS; i++) {
      check(await fetchTimed(gateway("sse-units"), key), SSE_BYTES, "sse-units via gateway");
      perUnitCalls++;
    }
    cpu.perUnit += serverSideCpu() - cpuBefore;
    // The same chat stream through the OpenAI-compatible tool and the plain one, taking turns for
    // the first byte; the CPU of each in a block of its own.
    for (let i = 0; i < CALLS; i++) {
      const openai = await fetchTimed(`${gateway("llm")}/chat/completions`, key, LLM_BODY);
      check(openai, LLM_BYTES, "llm via gateway");
      llmTtfb.openai.push(openai.first);
      const plain = await fetchTimed(`${gateway("llm-plain")}/chat/completions`, key, LLM_BODY);
      check(plain, LLM_BYTES, "llm-plain via gateway");
      llmTtfb.plain.push(plain.first);
    }
    llmCalls += CALLS;
    cpuBefore = serverSideCpu();
    for (let i = 0; i < CALLS; i++) check(await fetchTimed(`${gateway("llm")}/chat/completions`, key, LLM_BODY), LLM_BYTES, "llm via gateway");
    cpu.llm += serverSideCpu() - cpuBefore;
    cpuBefore = serverSideCpu();
    for (let i = 0; i < CALLS; i++) check(await fetchTimed(`${gateway("llm-plain")}/chat/completions`, key, LLM_BODY), LLM_BYTES, "llm-plain via gateway");
    cpu.llmPlain += serverSideCpu() - cpuBefore;
    llmCalls += CALLS;
    for (let i = 0; i < RELAYS; i++) {
      // The server's own CPU only: the upstream and this client run the same code on both routes.
      const relayCpuBefore = processCpuMicros(server.pid!);
      const big = await fetchTimed(gateway("big"), key);
      cpu.relay += processCpuMicros(server.pid!) - relayCpuBefore;
      check(big, BIG_BYTES, "big via gateway");
      perCallCharges++;
      throughput.gateway.push(BIG_BYTES / 1024 / 1024 / (big.total / 1000));
      const bigDirect = await fetchTimed(`${direct}/big`);
      throughput.direct.push(BIG_BYTES / 1024 / 1024 / (bigDirect.total / 1000));
    }
  }
  const after = parseMoney(await client.balance());
  // Every llm-plain call is a per-call charge; every llm call costs its tokens.
  const expected = before - parseMoney("0.0001") * BigInt(perCallCharges + llmCalls) - parseMoney("0.00004") * BigInt(perUnitCalls) - LLM_CALL_MICROS * BigInt(llmCalls);
  const perUnitCpuRatio = cpu.perUnit / cpu.perCall;

  const p50 = { gateway: median(ttfb.gateway), direct: median(ttfb.direct) };
  const mbps = { gateway: median(throughput.gateway), direct: median(throughput.direct) };
  console.log(`\nstreaming benchmark on ${args.db}: ${ROUNDS} rounds of ${CALLS} first-byte calls and ${RELAYS} ${BIG_MB} MB bodies per route`);
  console.table({
    "time to first byte p50 (ms)": { gateway: +p50.gateway.toFixed(2), direct: +p50.direct.toFixed(2), extra: +(p50.gateway - p50.direct).toFixed(2) },
    [`${BIG_MB} MB relay, median MB/s`]: { gateway: Math.round(mbps.gateway), direct: Math.round(mbps.direct), extra: `${((mbps.gateway / mbps.direct) * 100).toFixed(1)}%` },
  });
  console.log(
    `${args.db === "postgres" ? "server + PostgreSQL" : "server"} CPU per streamed call: per unit (hold 100, settle 40) ${Math.round(cpu.perUnit / (ROUNDS * CALLS))} µs, ` +
      `per call ${Math.round(cpu.perCall / (ROUNDS * CALLS))} µs: ${perUnitCpuRatio.toFixed(2)}× (goal ≤ 1.5×; the clock ticks are 10 ms, so use --calls 500 or more)`,
  );
  console.log(
    `server CPU per MB relayed: ${Math.round(cpu.relay / (ROUNDS * RELAYS * BIG_MB))} µs; MB/s per body, gateway ${throughput.gateway.map(Math.round).join(" ")}, direct ${throughput.direct.map(Math.round).join(" ")}; load average ${fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`,
  );
  const llmP50 = { openai: median(llmTtfb.openai), plain: median(llmTtfb.plain) };
  const llmCpuRatio = cpu.llm / cpu.llmPlain;
  console.log(
    `streamed chat through an OpenAI-compatible tool vs a plain HTTP tool: first byte p50 ${llmP50.openai.toFixed(2)} vs ${llmP50.plain.toFixed(2)} ms ` +
      `(+${(llmP50.openai - llmP50.plain).toFixed(2)} ms, goal ≤ 0.2), server CPU per call ${Math.round(cpu.llm / (ROUNDS * CALLS))} vs ${Math.round(cpu.llmPlain / (ROUNDS * CALLS))} µs: ${llmCpuRatio.toFixed(2)}× (goal ≤ 1.2×)`,
  );
  console.log(`balance: ${formatMoney(before)} → ${formatMoney(after)}; expected ${formatMoney(expected)}; difference ${formatMoney(after - expected)}`);

  server.kill("SIGTERM");
  await once(server, "exit");
  const verify = bench.cli("ledger", "verify");
  console.log(verify.out.trim() || verify.err.trim());
  if (after !== expected) failures.push("money difference");
  if (verify.code !== 0) failures.push("ledger does not verify");
  if (p50.gateway - p50.direct > 1) failures.push("more than 1 ms extra time to first byte at p50");
  if (mbps.gateway < 0.8 * mbps.direct) failures.push("relay below 80% of direct throughput");
  if (perUnitCpuRatio > 1.5) failures.push("a per-unit streamed call over 1.5× the CPU of a per-call one");
  if (llmP50.openai - llmP50.plain > 0.2) failures.push("more than 0.2 ms extra first byte through an OpenAI-compatible tool");
  if (llmCpuRatio > 1.2) failures.push("a streamed OpenAI-compatible call over 1.2× the CPU of the same call through a plain tool");
  console.log(failures.length === 0 ? "all targets met" : `targets missed: ${failures.join("; ")}`);
  process.exitCode = failures.length === 0 ? 0 : 1;
} finally {
  if (server.exitCode === null) server.kill("SIGTERM");
  upstream.kill("SIGTERM");
  agent.destroy();
  bench.cleanup();
}
