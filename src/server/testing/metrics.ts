import type { FastifyInstance } from "fastify";

/** The METRICS_TOKEN of test apps that read their own /metrics. */
export const TEST_METRICS_TOKEN = "test-metrics-token-0123456789";

/** The values of the app's /metrics samples, by sample (`name{label="value",…}` as written); a sample not yet written is absent. */
export async function metricSamples(app: FastifyInstance): Promise<Map<string, number>> {
  const response = await app.inject({ url: "/metrics", headers: { authorization: `Bearer ${TEST_METRICS_TOKEN}` } });
  if (response.statusCode !== 200) throw new Error(`GET /metrics answered ${response.statusCode}: is METRICS_TOKEN set to TEST_METRICS_TOKEN?`);
  const samples = new Map<string, number>();
  for (const line of response.body.split("\n")) {
    const m = /^(\w+(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (m) samples.set(m[1]!, Number(m[2]));
  }
  return samples;
}

/** How much each sample grew while `act` ran (0 for one that did not). */
export async function metricsGrowth(app: FastifyInstance, samples: string[], act: () => Promise<unknown>): Promise<Record<string, number>> {
  const before = await metricSamples(app);
  await act();
  const after = await metricSamples(app);
  return Object.fromEntries(samples.map((sample) => [sample, (after.get(sample) ?? 0) - (before.get(sample) ?? 0)]));
}
