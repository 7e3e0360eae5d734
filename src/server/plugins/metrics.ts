import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { bearerToken } from "../lib/bearer";
import type { Counting } from "../lib/counters";
import { askPrimaryForMetrics, isClusterWorker, shareWithPrimary } from "../cluster-metrics";

/** The money's health as the ledger reconciler last saw it (modules/ledger/health.ts). */
export interface MoneyHealth {
  driftUsers: number;
  driftMicros: bigint;
  negativeBalances: number;
  stuckHolds: number;
}

/**
 * A gateway call that ended, as the metrics count it; `tool` is a catalog id or "unknown".
 * `amountMicros`: what its caller's balance paid; `prepaidUsed`: the units its lots paid, the first
 * of `prepaidDraws` (the units a call keeps are the ones it drew first).
 */
export interface EndedCall {
  tool: string;
  outcome: string;
  status: number;
  amountMicros: bigint;
  prepaidDraws: readonly { source: string; units: number }[] | null;
  prepaidUsed: number;
  /** What broke at the upstream (lib/counters.ts, UPSTREAM_FAULTS); null when nothing did. */
  upstreamFault: string | null;
  /** Bytes of a streamed answer relayed to the caller (0 for an answer sent whole). */
  streamedBytes: number;
  totalUs: number;
  upstreamUs: number | null;
}

/** What the app reports as it runs. */
export interface MetricsSink extends Counting {
  /** Whether anything reads what is reported (METRICS_TOKEN is set): work done only to report it can be skipped otherwise. */
  readonly kept: boolean;
  /** A gateway call that ended (its answer sent, or its stream over). */
  observeCall(call: EndedCall): void;
  /** A package of a catalog tool's units bought from a balance, for `micros`. */
  packageSold(tool: string, micros: bigint): void;
  /** Reads, at each scrape, how many calls hold a charge not yet settled (the gateway's). */
  watchHoldsInFlight(read: () => number): void;
  /** Reads, at each scrape, the bytes of request bodies held in memory (the body budget's). */
  watchBodiesHeld(read: () => number): void;
  /** A completed pass of the ledger reconciler. */
  observeMoneyHealth(health: MoneyHealth): void;
  /** Times one charge batch, for the gateway's group committer. */
  observeChargeBatch(size: number, seconds: number, ok: boolean): void;
  /** A Redis command or connection error (REDIS_URL). */
  redisError(operation: string): void;
  /** Call log rows that were never written (modules/calls). */
  callLogRowsDropped(reason: string, rows: number): void;
}

/** With no METRICS_TOKEN nothing can read metrics, so none are kept, and prom-client is not loaded. */
const NOT_KEPT: MetricsSink = { kept: false, count: () => {}, observeCall: () => {}, packageSold: () => {}, watchHoldsInFlight: () => {}, watchBodiesHeld: () => {}, observeMoneyHealth: () => {}, observeChargeBatch: () => {}, redisError: () => {}, callLogRowsDropped: () => {} };

declare module "fastify" {
  interface FastifyInstance {
    metrics: MetricsSink;
  }
}

function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * Prometheus metrics (prom-client), one registry per app. GET /metrics answers only with
 * `Authorization: Bearer $METRICS_TOKEN` and does not exist without it. In a cluster a worker
 * asks the primary, which gathers every worker's registry, so one scrape sees all of them.
 */
export default fp(
  async function metricsPlugin(app: FastifyInstance) {
    const token = app.config.metricsToken;
    if (!token) {
      app.decorate("metrics", NOT_KEPT);
      return;
    }
    const { PrometheusMetrics } = await import("./prometheus-metrics");
    const metrics = new PrometheusMetrics(app.database, app.config.webConcurrency);
    app.decorate("metrics", metrics);
    if (isClusterWorker()) await shareWithPrimary(metrics.registry);

    // Callback-style: an async hook would cost every request a promise.
    app.addHook("onResponse", (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      metrics.observeResponse(request.method, request.routeOptions.url ?? "unmatched", reply);
      done();
    });

    app.get("/metrics", { logLevel: "warn", schema: { hide: true } }, async (request, reply) => {
      const given = bearerToken(request.headers.authorization);
      if (!given || !sameSecret(given, token)) {
        return reply.code(401).header("www-authenticate", "Bearer").send({ code: "unauthorized", message: "GET /metrics needs Authorization: Bearer $METRICS_TOKEN" });
      }
      const text = isClusterWorker() ? await askPrimaryForMetrics() : await metrics.registry.metrics();
      return reply.header("cache-control", "no-store").type(metrics.registry.contentType).send(text);
    });
  },
  { name: "metrics", dependencies: ["config", "db"] },
);
