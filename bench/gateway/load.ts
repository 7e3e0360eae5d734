/**
 * Driving a benchmarked server and measuring it: stretches of load (autocannon, many connections)
 * or of calls one after another on one connection, each with the CPU time the server, PostgreSQL
 * and the load generator spent on it; and a summary of several stretches.
 */
import autocannon from "autocannon";
import type { Client } from "undici";
import { postgresCpuMicros, processCpuMicros } from "./cpu";

/** The server a stretch is sent to. */
export interface Target {
  base: string;
  /** The server process, for its CPU time. */
  pid: number;
  /** Whether its database is the PostgreSQL server, whose processes' CPU time is counted too. */
  postgres: boolean;
}

export interface Run {
  label: string;
  requestsPerSecond: number;
  /** Server CPU time (all its threads) and the load generator's, per completed call. */
  serverCpuPerCallUs: number;
  /** PostgreSQL's processes (0 on PGlite). */
  postgresCpuPerCallUs: number;
  clientCpuPerCallUs: number;
  p50: number;
  p99: number;
  ok: number;
  other: number;
  errors: number;
}

/** One stretch of load against one route. */
export interface Sample {
  seconds: number;
  serverCpuUs: number;
  postgresCpuUs: number;
  clientCpuUs: number;
  latenciesMs: number[];
  ok: number;
  other: number;
  errors: number;
}

/** What a stretch of calls gave, before its CPU time is added. */
type Driven = Omit<Sample, "serverCpuUs" | "postgresCpuUs" | "clientCpuUs">;

/** Runs a stretch of calls and counts the CPU time the server, PostgreSQL and this process spent on it. */
async function measured(target: Target, drive: () => Promise<Driven>): Promise<Sample> {
  // PostgreSQL's processes' CPU time; 0 on PGlite, whose work is the server's own.
  const databaseCpuMicros = () => (target.postgres ? postgresCpuMicros() : 0);
  const serverCpuBefore = processCpuMicros(target.pid);
  const postgresCpuBefore = databaseCpuMicros();
  const clientCpuBefore = process.cpuUsage();
  const driven = await drive();
  const clientCpu = process.cpuUsage(clientCpuBefore);
  return {
    ...driven,
    serverCpuUs: processCpuMicros(target.pid) - serverCpuBefore,
    // A PostgreSQL process that exits takes its time with it: never below zero.
    postgresCpuUs: Math.max(0, databaseCpuMicros() - postgresCpuBefore),
    clientCpuUs: clientCpu.user + clientCpu.system,
  };
}

export const BODY = JSON.stringify({ hello: "world", n: 42 });

/** `amount` calls from `connections` concurrent clients (autocannon), the keys shared out among them. */
export function load(target: Target, urlPath: string, keys: string[], amount: number, connections: number): Promise<Sample> {
  return measured(target, async () => {
    let next = 0;
    let firstRequestAt = 0;
    let lastResponseAt = 0;
    const latenciesMs: number[] = [];
    const result = await new Promise<autocannon.Result>((resolve, reject) => {
      const instance = autocannon(
        {
          url: `${target.base}${urlPath}`,
          connections,
          amount,
          method: "POST",
          headers: { "content-type": "application/json" },
          body: BODY,
          setupClient: (client) => {
            if (keys.length > 0) client.setHeaders({ "content-type": "application/json", authorization: `Bearer ${keys[next++ % keys.length]}` });
          },
        },
        (error, done) => (error ? reject(error) : resolve(done)),
      );
      instance.on("start", () => (firstRequestAt = performance.now()));
      instance.on("response", (_client, _status, _bytes, responseTimeMs) => {
        lastResponseAt = performance.now();
        latenciesMs.push(responseTimeMs);
      });
    });
    // autocannon notices the end of a run on its once-a-second tick, so its own duration is rounded up
    // to the next second; the run lasts from its start to its last response.
    return {
      seconds: (lastResponseAt - firstRequestAt) / 1000,
      latenciesMs,
      ok: result["2xx"],
      other: result.non2xx,
      errors: result.errors + result.timeouts,
    };
  });
}

/**
 * `amount` calls one after another on one kept-alive connection; `then` runs after each successful
 * answer and counts in its latency (the direct charge of the floor), so `ok` counts its runs too.
 */
export function oneAtATime(target: Target, connection: Client, urlPath: string, key: string | null, amount: number, then?: () => Promise<void>): Promise<Sample> {
  const headers: Record<string, string> = { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) };
  return measured(target, async () => {
    const latenciesMs: number[] = [];
    let ok = 0;
    let other = 0;
    const startedAt = performance.now();
    for (let i = 0; i < amount; i++) {
      const sentAt = performance.now();
      const response = await connection.request({ method: "POST", path: urlPath, headers, body: BODY });
      await response.body.arrayBuffer();
      if (response.statusCode >= 200 && response.statusCode < 300) {
        ok++;
        await then?.();
      } else other++;
      latenciesMs.push(performance.now() - sentAt);
    }
    return { seconds: (performance.now() - startedAt) / 1000, latenciesMs, ok, other, errors: 0 };
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function summarize(label: string, samples: Sample[]): Run {
  const sum = (pick: (s: Sample) => number) => samples.reduce((total, s) => total + pick(s), 0);
  const calls = sum((s) => s.ok + s.other);
  const latencies = samples.flatMap((s) => s.latenciesMs).sort((a, b) => a - b);
  return {
    label,
    requestsPerSecond: calls / sum((s) => s.seconds),
    serverCpuPerCallUs: Math.round(sum((s) => s.serverCpuUs) / calls),
    postgresCpuPerCallUs: Math.round(sum((s) => s.postgresCpuUs) / calls),
    clientCpuPerCallUs: Math.round(sum((s) => s.clientCpuUs) / calls),
    p50: Math.round(percentile(latencies, 50) * 100) / 100,
    p99: Math.round(percentile(latencies, 99) * 100) / 100,
    ok: sum((s) => s.ok),
    other: sum((s) => s.other),
    errors: sum((s) => s.errors),
  };
}
