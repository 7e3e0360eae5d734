import { AggregatorRegistry, Counter, Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { SeriesCounter, SeriesHistogram } from "./metric-series";

/** The same observations through prom-client's own metrics and through series kept as objects. */
function both() {
  const theirs = new Registry();
  const ours = new Registry();
  const buckets = [0.001, 0.01, 0.1, 1];
  const histogram = new Histogram({ name: "t_seconds", help: "h", labelNames: ["tool", "phase"], buckets, registers: [theirs] });
  const counter = new Counter({ name: "t_calls_total", help: "c", labelNames: ["tool", "outcome"], registers: [theirs] });
  const seriesHistogram = new SeriesHistogram({ name: "t_seconds", help: "h", labelNames: ["tool", "phase"], buckets, registry: ours });
  const seriesCounter = new SeriesCounter("t_calls_total", "c", ["tool", "outcome"], ours);
  for (const [tool, phase, seconds] of [["echo", "total", 0.0004], ["echo", "total", 0.02], ["echo", "upstream", 0.01], ["llm", "total", 7], ["echo", "total", 1]] as const) {
    histogram.observe({ tool, phase }, seconds);
    seriesHistogram.series(tool, phase).observe(seconds);
  }
  for (const [tool, outcome, by] of [["echo", "served", 1], ["echo", "served", 2], ["llm", "refused", 1]] as const) {
    counter.inc({ tool, outcome }, by);
    seriesCounter.series(tool, outcome).inc(by);
  }
  return { theirs, ours };
}

describe("metric series kept as objects", () => {
  it("export exactly what prom-client's histogram and counter export for the same observations", async () => {
    const { theirs, ours } = both();
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });

  it("aggregate across a cluster's workers as prom-client's do", async () => {
    const { theirs, ours } = both();
    const aggregate = async (registry: Registry) => (await AggregatorRegistry.aggregate([await registry.getMetricsAsJSON(), await registry.getMetricsAsJSON()]).metrics());
    expect(await aggregate(ours)).toBe(await aggregate(theirs));
  });
});
