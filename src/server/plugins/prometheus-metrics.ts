import type { FastifyReply } from "fastify";
import { Counter, Gauge, Registry, collectDefaultMetrics } from "prom-client";
import { LOT_SOURCES, type LotSource } from "../db/schema/lots";
import { COUNTERS, countedValue, UPSTREAM_FAULTS, type CounterLabels, type CounterName, type UpstreamFault } from "../lib/counters";
import type { EndedCall, MetricsSink, MoneyHealth } from "./metrics";
import { SeriesCounter, SeriesHistogram, type CounterSeries, type HistogramSeries } from "./metric-series";

/** A tool's series of the call metrics, found once. */
interface ToolSeries {
  total: HistogramSeries;
  upstream: HistogramSeries;
  tollgate: HistogramSeries;
  charged: CounterSeries;
  prepaid: Record<LotSource, CounterSeries>;
  faults: Record<UpstreamFault, CounterSeries>;
  streamedBytes: CounterSeries;
}

/**
 * Prometheus metrics (prom-client), one registry per app. GET /metrics answers only with
 * `Authorization: Bearer $METRICS_TOKEN` and does not exist without it. In a cluster a worker
 * asks the primary, which gathers every worker's registry, so one scrape sees all of them.
 */
export class PrometheusMetrics implements MetricsSink {
  readonly kept = true;
  readonly registry = new Registry();
  // Every worker checks the same database: a cluster's scrape shows the largest a worker saw, not the sum.
  readonly ledgerDriftUsers = new Gauge({
    name: "tollgate_ledger_drift_users",
    help: "Users whose balance is not the sum of their ledger entries, at the reconciler's last full pass (must be 0)",
    aggregator: "max",
    registers: [this.registry],
  });
  readonly ledgerDriftMicros = new Gauge({
    name: "tollgate_ledger_drift_micros",
    help: "How far balances are from their ledgers, summed over users, in micro-units, at the reconciler's last full pass (must be 0)",
    aggregator: "max",
    registers: [this.registry],
  });
  readonly negativeBalances = new Gauge({
    name: "tollgate_negative_balances",
    help: "Users whose balance is below zero, at the reconciler's last full pass (must be 0)",
    aggregator: "max",
    registers: [this.registry],
  });
  readonly stuckHolds = new Gauge({
    name: "tollgate_stuck_holds",
    help: "Calls still holding their charge past GATEWAY_ABANDONED_AFTER_SECONDS, which the abandoned-call sweep refunds (must be 0)",
    aggregator: "max",
    registers: [this.registry],
  });
  readonly ledgerChecks = new Counter({
    name: "tollgate_ledger_reconciler_passes_total",
    help: "Full passes of the ledger reconciler over every user",
    registers: [this.registry],
  });
  // Observed on every request and call: series kept as objects (metric-series.ts).
  readonly httpRequests = new SeriesHistogram({
    name: "tollgate_http_request_duration_seconds",
    help: "HTTP requests by method, route and status, and how long they took",
    labelNames: ["method", "route", "status"],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registry: this.registry,
  });
  readonly gatewayCalls = new SeriesCounter(
    "tollgate_gateway_calls_total",
    "Gateway calls by tool, outcome (the call log's codes), class of the status the caller got, and whether they cost anything",
    ["tool", "outcome", "status_class", "charged"],
    this.registry,
  );
  readonly gatewayCallSeconds = new SeriesHistogram({
    name: "tollgate_gateway_call_duration_seconds",
    help: "How long gateway calls took by tool and phase: total, upstream (the tool's share) and tollgate (the rest)",
    labelNames: ["tool", "phase"],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120],
    registry: this.registry,
  });
  readonly gatewayChargedMicros = new SeriesCounter(
    "tollgate_gateway_charged_micros_total",
    "Money the balances paid for gateway calls, in micro-units, by tool (after refunds of what a call did not use; units paid by lots are in tollgate_gateway_prepaid_units_total)",
    ["tool"],
    this.registry,
  );
  readonly gatewayPrepaidUnits = new SeriesCounter(
    "tollgate_gateway_prepaid_units_total",
    "Units of gateway calls paid by prepaid lots, by tool and source (free quota, bought package, operator's grant), after what a call did not use went back",
    ["tool", "source"],
    this.registry,
  );
  readonly upstreamErrors = new SeriesCounter(
    "tollgate_gateway_upstream_errors_total",
    "Gateway calls whose upstream failed, by tool and kind: connect (not reached), timeout, reset (connection or stream broken), status (answered 5xx), other",
    ["tool", "kind"],
    this.registry,
  );
  readonly streamedBytes = new SeriesCounter(
    "tollgate_gateway_streamed_bytes_total",
    "Bytes of streamed answers relayed to callers, by tool",
    ["tool"],
    this.registry,
  );
  readonly packageSales = new Counter({
    name: "tollgate_package_sales_total",
    help: "Packages of a tool's units bought from balances, by tool",
    labelNames: ["tool"] as const,
    registers: [this.registry],
  });
  readonly packageSaleMicros = new Counter({
    name: "tollgate_package_sale_micros_total",
    help: "Money balances paid for packages, in micro-units, by tool",
    labelNames: ["tool"] as const,
    registers: [this.registry],
  });
  private readonly toolSeries = new Map<string, ToolSeries>();
  // A batch every few calls: series kept, as for the calls.
  private readonly chargeBatchSize = new SeriesHistogram({
    name: "tollgate_charge_batch_size",
    help: "Calls charged together in one batch",
    labelNames: [],
    buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500],
    registry: this.registry,
  }).series();
  private readonly chargeBatchSeconds = new SeriesHistogram({
    name: "tollgate_charge_batch_duration_seconds",
    help: "How long one charge batch took at the database",
    labelNames: ["result"],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registry: this.registry,
  });
  private readonly chargeBatchOk = this.chargeBatchSeconds.series("ok");
  private readonly chargeBatchFailed = this.chargeBatchSeconds.series("error");
  /** The HTTP histogram's series by method, route and status: found without building a key. */
  private readonly responseSeries = new Map<string, Map<string, Map<number, HistogramSeries>>>();
  /** For the Redis client (REDIS_URL): count each command or connection error here. */
  readonly redisErrors = new Counter({
    name: "tollgate_redis_errors_total",
    help: "Errors talking to Redis",
    labelNames: ["operation"] as const,
    registers: [this.registry],
  });

  readonly callLogDropped = new Counter({
    name: "tollgate_call_log_rows_dropped_total",
    help: "Call log rows never written: the queue was full (queue_full) or their batch failed (write_failed)",
    labelNames: ["reason"] as const,
    registers: [this.registry],
  });

  /** Each starts at 0 for every combination of its labels' values, so a rate or an alert sees the series before its first event. */
  private readonly counters = new Map<CounterName, Counter>(
    Object.entries(COUNTERS).map(([family, { name, help, labels }]) => {
      const counter = new Counter({ name, help, labelNames: Object.keys(labels), registers: [this.registry] });
      for (const combination of everyCombination(labels)) counter.inc(combination, 0);
      return [family as CounterName, counter];
    }),
  );

  constructor(
    database: { queueStats?(): { total: number; idle: number; waiting: number } },
    /** WEB_CONCURRENCY: how many worker processes the server should have. */
    workersConfigured = 1,
  ) {
    // Each process counts itself; a cluster's scrape sums its workers, so a worker that is down (or
    // restarting) shows as one fewer than configured.
    new Gauge({ name: "tollgate_workers", help: "Server processes that answered this scrape", aggregator: "sum", registers: [this.registry] }).set(1);
    new Gauge({ name: "tollgate_workers_configured", help: "Server processes there should be (WEB_CONCURRENCY)", aggregator: "max", registers: [this.registry] }).set(workersConfigured);
    for (const reason of ["queue_full", "write_failed"]) this.callLogDropped.inc({ reason }, 0);
    const stats = database.queueStats?.bind(database);
    if (stats) {
      new Gauge({
        name: "tollgate_db_connections",
        help: "Database connections by state: pool size and idle connections (PostgreSQL), 1 for the PGlite thread",
        labelNames: ["state"] as const,
        registers: [this.registry],
        collect() {
          const now = stats();
          this.set({ state: "total" }, now.total);
          this.set({ state: "idle" }, now.idle);
        },
      });
      new Gauge({
        name: "tollgate_db_waiting",
        help: "Queries waiting for a pool connection (PostgreSQL) or statements queued for the PGlite thread",
        registers: [this.registry],
        collect() {
          this.set(stats().waiting);
        },
      });
    }
    collectDefaultMetrics({ register: this.registry });
  }

  count<N extends CounterName>(family: N, labels: CounterLabels<N>, by: number | bigint = 1): void {
    const allowed: Record<string, readonly string[]> = COUNTERS[family].labels;
    const counted: Record<string, string> = {};
    for (const [label, value] of Object.entries(labels as Record<string, string>)) counted[label] = countedValue(allowed[label] ?? [], value);
    this.counters.get(family)!.inc(counted, Number(by));
  }

  observeMoneyHealth(health: MoneyHealth): void {
    this.ledgerDriftUsers.set(health.driftUsers);
    this.ledgerDriftMicros.set(Number(health.driftMicros));
    this.negativeBalances.set(health.negativeBalances);
    this.stuckHolds.set(health.stuckHolds);
    this.ledgerChecks.inc();
  }

  redisError(operation: string): void {
    this.redisErrors.inc({ operation });
  }

  callLogRowsDropped(reason: string, rows: number): void {
    this.callLogDropped.inc({ reason }, rows);
  }

  /** One answered request. */
  observeResponse(method: string, route: string, reply: FastifyReply): void {
    const status = reply.statusCode;
    let byRoute = this.responseSeries.get(method);
    if (!byRoute) this.responseSeries.set(method, (byRoute = new Map()));
    let byStatus = byRoute.get(route);
    if (!byStatus) byRoute.set(route, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (!series) byStatus.set(status, (series = this.httpRequests.series(method, route, String(status))));
    series.observe(reply.elapsedTime / 1000);
  }

  private seriesOf(tool: string): ToolSeries {
    let found = this.toolSeries.get(tool);
    if (!found) {
      const phase = (name: string) => this.gatewayCallSeconds.series(tool, name);
      const prepaid = Object.fromEntries(LOT_SOURCES.map((source) => [source, this.gatewayPrepaidUnits.series(tool, source)])) as Record<LotSource, CounterSeries>;
      const faults = Object.fromEntries(UPSTREAM_FAULTS.map((kind) => [kind, this.upstreamErrors.series(tool, kind)])) as Record<UpstreamFault, CounterSeries>;
      found = {
        total: phase("total"),
        upstream: phase("upstream"),
        tollgate: phase("tollgate"),
        charged: this.gatewayChargedMicros.series(tool),
        prepaid,
        faults,
        streamedBytes: this.streamedBytes.series(tool),
      };
      this.toolSeries.set(tool, found);
    }
    return found;
  }

  observeCall(call: EndedCall): void {
    const { tool } = call;
    const charged = call.amountMicros > 0n || call.prepaidUsed > 0;
    this.gatewayCalls.series(tool, call.outcome, `${Math.floor(call.status / 100)}xx`, charged ? "true" : "false").inc();
    const series = this.seriesOf(tool);
    const total = call.totalUs / 1e6;
    series.total.observe(total);
    const upstream = call.upstreamUs === null ? 0 : call.upstreamUs / 1e6;
    if (call.upstreamUs !== null) series.upstream.observe(upstream);
    series.tollgate.observe(Math.max(0, total - upstream));
    if (charged) series.charged.inc(Number(call.amountMicros));
    if (call.upstreamFault) series.faults[call.upstreamFault as UpstreamFault]?.inc();
    if (call.streamedBytes > 0) series.streamedBytes.inc(call.streamedBytes);
    let used = call.prepaidUsed;
    for (const draw of call.prepaidDraws ?? []) {
      if (used <= 0) break;
      const kept = Math.min(used, draw.units);
      series.prepaid[draw.source as LotSource]?.inc(kept);
      used -= kept;
    }
  }

  watchHoldsInFlight(read: () => number): void {
    this.gaugeReadAtScrape("tollgate_gateway_holds_in_flight", "Gateway calls holding a charge that is not settled yet (the upstream is answering)", read);
  }

  watchBodiesHeld(read: () => number): void {
    this.gaugeReadAtScrape("tollgate_request_body_bytes_held", "Bytes of request bodies held in memory (arriving, or until their answer is sent); past BODY_MEMORY_MB a body is refused with 503", read);
  }

  /** A gauge a cluster's scrape sums over its workers, each reading `read` when scraped. */
  private gaugeReadAtScrape(name: string, help: string, read: () => number): void {
    new Gauge({
      name,
      help,
      aggregator: "sum",
      registers: [this.registry],
      collect() {
        this.set(read());
      },
    });
  }

  packageSold(tool: string, micros: bigint): void {
    this.packageSales.inc({ tool });
    this.packageSaleMicros.inc({ tool }, Number(micros));
  }

  /** Times one charge batch, for the gateway's group committer. */
  observeChargeBatch(size: number, seconds: number, ok: boolean): void {
    this.chargeBatchSize.observe(size);
    (ok ? this.chargeBatchOk : this.chargeBatchFailed).observe(seconds);
  }
}

/** Every assignment of one value to each label. */
function everyCombination(labels: Record<string, readonly string[]>): Record<string, string>[] {
  return Object.entries(labels).reduce<Record<string, string>[]>(
    (combinations, [label, values]) => combinations.flatMap((partial) => values.map((value) => ({ ...partial, [label]: value }))),
    [{}],
  );
}
