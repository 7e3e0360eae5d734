/**
 * WEB_CONCURRENCY > 1: the primary process migrates the database once, then forks that many
 * workers sharing the port (node:cluster), replaces a worker that dies, gathers their metrics,
 * and on SIGTERM or SIGINT has every worker drain and waits for them before it exits.
 */
import cluster, { type Worker } from "node:cluster";
import pino from "pino";
import type { AppConfig } from "./config";
import { answerMetricsRequests } from "./cluster-metrics";
import { openDatabase } from "./db/client";
import { DatabaseOpeningError } from "./lib/database-url";
import { loggerOptions } from "./logger";

const RESTART_DELAY_MS = 1000;
/**
 * Workers in a row that end before they listen, while none listens, before the primary gives up and
 * exits 1: a mistake in the tool catalog or another failure of a worker's start (each worker prints
 * it; the primary checks the configuration before it forks), which every new worker would repeat. systemd's Restart=on-failure then restarts the instance at its own pace,
 * and `systemctl status` shows the failure, as it does for a single process.
 */
const START_FAILURES_BEFORE_EXIT = 3;
/** Sent by the primary to each worker on SIGTERM or SIGINT: drain and exit, as on a signal. */
export const SHUTDOWN_MESSAGE = "tollgate:shutdown";

export async function runPrimary(config: AppConfig): Promise<void> {
  const options = loggerOptions(config) as pino.LoggerOptions & { stream?: pino.DestinationStream };
  const log = options.stream ? pino(options, options.stream) : pino(options);
  const database = openDatabase(config);
  try {
    await database.migrate().catch((error: unknown) => {
      throw new DatabaseOpeningError(config, error);
    });
  } finally {
    await database.close();
  }
  if (config.metricsToken) await answerMetricsRequests();

  let stopping = false;
  const listening = new Set<number>();
  let announced = false;
  let startFailures = 0;
  const fork = () => cluster.fork();
  cluster.on("online", (worker: Worker) => log.debug({ worker: worker.process.pid }, "a worker started"));
  cluster.on("listening", (worker: Worker, address) => {
    listening.add(worker.id);
    startFailures = 0;
    if (!announced && listening.size === config.webConcurrency) {
      announced = true;
      log.info({ workers: config.webConcurrency, port: address.port, node: process.version }, "ready");
    }
  });
  cluster.on("exit", (worker: Worker, code, signal) => {
    const listened = listening.delete(worker.id);
    if (stopping) return;
    if (!listened && listening.size === 0 && ++startFailures >= START_FAILURES_BEFORE_EXIT) {
      log.fatal({ worker: worker.process.pid, code, signal, failures: startFailures }, "workers keep failing to start (the reason is above): stopping");
      process.exit(1);
    }
    log.error({ worker: worker.process.pid, code, signal }, "a worker stopped; starting another");
    // Not unref'd: once every worker has gone (killed together, say, by the OOM killer) this timer is
    // all that keeps the primary running, and a primary that ended here exited 0, which systemd's
    // Restart=on-failure takes for a clean stop: the instance stayed down.
    setTimeout(() => {
      if (!stopping) fork();
    }, RESTART_DELAY_MS);
  });
  for (let i = 0; i < config.webConcurrency; i++) fork();

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "shutting down: every worker finishes what it started");
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
    // The workers keep their own deadline; this one only catches a worker that hangs past it.
    setTimeout(() => process.exit(1), config.shutdownTimeoutMs + 5000).unref();
    let left = workers.length;
    if (left === 0) process.exit(0);
    for (const worker of workers) {
      worker.once("exit", () => {
        left -= 1;
        if (left === 0) {
          log.info("all workers stopped");
          process.exit(0);
        }
      });
      // A worker still starting may not listen for messages yet, and would lose this one: it has
      // nothing to drain, so the signal ends it.
      if (listening.has(worker.id)) worker.send({ type: SHUTDOWN_MESSAGE });
      else worker.process.kill("SIGTERM");
    }
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}
