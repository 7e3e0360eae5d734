/**
 * One scrape for all workers: a worker's GET /metrics asks the primary, which gathers every
 * worker's registry with prom-client's AggregatorRegistry and answers the worker that asked.
 */
import cluster, { type Worker } from "node:cluster";
import type { Registry } from "prom-client";
import { loadOnce } from "./lib/load-once";

/** Loaded only where metrics are kept (METRICS_TOKEN). */
const promClient = loadOnce(() => import("prom-client"));

const REQUEST = "tollgate:metrics-request";
const RESPONSE = "tollgate:metrics-response";
const TIMEOUT_MS = 10_000;

type MetricsMessage = { type: typeof REQUEST; id: number } | { type: typeof RESPONSE; id: number; text?: string; error?: string };

export const isClusterWorker = (): boolean => cluster.isWorker;

/** In a worker: the registry the primary's AggregatorRegistry collects from this process. */
export async function shareWithPrimary(registry: Registry): Promise<void> {
  const { AggregatorRegistry } = await promClient();
  // prom-client starts answering the primary's requests only once an AggregatorRegistry exists here.
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
}

let nextId = 0;

export function askPrimaryForMetrics(): Promise<string> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    const onMessage = (message: MetricsMessage) => {
      if (message?.type !== RESPONSE || message.id !== id) return;
      done();
      if (message.text !== undefined) resolve(message.text);
      else reject(new Error(`the primary could not gather metrics: ${message.error}`));
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error("the primary did not answer with metrics in time"));
    }, TIMEOUT_MS);
    const done = () => {
      clearTimeout(timer);
      process.off("message", onMessage);
    };
    process.on("message", onMessage);
    process.send!({ type: REQUEST, id } satisfies MetricsMessage);
  });
}

/** In the primary: answers workers' requests with the metrics of all of them. */
export async function answerMetricsRequests(): Promise<void> {
  const { AggregatorRegistry } = await promClient();
  const aggregator = new AggregatorRegistry();
  cluster.on("message", (worker: Worker, message: MetricsMessage) => {
    if (message?.type !== REQUEST) return;
    aggregator.clusterMetrics().then(
      (text) => worker.isConnected() && worker.send({ type: RESPONSE, id: message.id, text } satisfies MetricsMessage),
      (error: Error) => worker.isConnected() && worker.send({ type: RESPONSE, id: message.id, error: error.message } satisfies MetricsMessage),
    );
  });
}
