import type { Metric, MetricValueWithName, Registry } from "prom-client";

/**
 * Histograms and counters whose series are objects the caller keeps: an observation is a few
 * additions, with no label object to build, validate and hash (prom-client's `observe` and `inc`
 * do that on every call, a measurable share of a gateway call's CPU: issue 41, 44). They register
 * in a prom-client Registry and export as its own metrics do (`get()`), so the exposition and a
 * cluster's aggregation stay prom-client's. For series on every request; anything rarer uses
 * prom-client's metrics directly.
 */
type Labels = Record<string, string>;

/** One histogram series: counts per bucket (the last is +Inf), their sum and count. */
export class HistogramSeries {
  private readonly counts: number[];
  sum = 0;
  count = 0;
  constructor(
    readonly labels: Labels,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }

  observe(value: number): void {
    let bucket = 0;
    while (bucket < this.bounds.length && value > this.bounds[bucket]!) bucket++;
    this.counts[bucket]!++;
    this.sum += value;
    this.count++;
  }

  /** prom-client's export of a series: cumulative buckets with `le` first, then _sum and _count. */
  values(name: string): MetricValueWithName<string>[] {
    const out: MetricValueWithName<string>[] = [];
    let cumulative = 0;
    this.bounds.forEach((bound, i) => {
      cumulative += this.counts[i]!;
      out.push({ metricName: `${name}_bucket`, labels: { le: bound, ...this.labels }, value: cumulative });
    });
    out.push({ metricName: `${name}_bucket`, labels: { le: "+Inf", ...this.labels }, value: this.count });
    out.push({ metricName: `${name}_sum`, labels: { ...this.labels }, value: this.sum });
    out.push({ metricName: `${name}_count`, labels: { ...this.labels }, value: this.count });
    return out;
  }
}

/** One counter series. */
export class CounterSeries {
  value = 0;
  constructor(readonly labels: Labels) {}

  inc(by = 1): void {
    this.value += by;
  }
}

abstract class SeriesMetric<S extends { labels: Labels }> {
  abstract readonly type: "histogram" | "counter";
  readonly aggregator = "sum" as const;
  private readonly all = new Map<string, S>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
    registry: Registry,
  ) {
    registry.registerMetric(this as unknown as Metric);
  }

  protected abstract make(labels: Labels): S;

  /** The series of these label values (every name, in the declared order), made on first use; keep it. */
  series(...values: string[]): S {
    const key = values.join("\u0000");
    let found = this.all.get(key);
    if (!found) {
      found = this.make(Object.fromEntries(this.labelNames.map((name, i) => [name, values[i]!])));
      this.all.set(key, found);
    }
    return found;
  }

  protected abstract valuesOf(series: S): MetricValueWithName<string>[];

  /** What prom-client's Registry reads of a metric (its exposition, and a cluster's aggregation). */
  get(): { name: string; help: string; type: "histogram" | "counter"; aggregator: "sum"; values: MetricValueWithName<string>[] } {
    const values = [...this.all.values()].flatMap((series) => this.valuesOf(series));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    this.all.clear();
  }
}

export class SeriesHistogram extends SeriesMetric<HistogramSeries> {
  readonly type = "histogram";
  private readonly buckets: readonly number[];
  constructor(options: { name: string; help: string; labelNames: readonly string[]; buckets: readonly number[]; registry: Registry }) {
    super(options.name, options.help, options.labelNames, options.registry);
    this.buckets = options.buckets;
  }
  protected make(labels: Labels) {
    return new HistogramSeries(labels, this.buckets);
  }
  protected valuesOf(series: HistogramSeries) {
    return series.values(this.name);
  }
}

export class SeriesCounter extends SeriesMetric<CounterSeries> {
  readonly type = "counter";
  protected make(labels: Labels) {
    return new CounterSeries(labels);
  }
  protected valuesOf(series: CounterSeries): MetricValueWithName<string>[] {
    return [{ labels: { ...series.labels }, value: series.value }];
  }
}
