import cluster from "node:cluster";
import closeWithGrace from "close-with-grace";
import { buildApp } from "./app";
import { startControlSocket } from "./cli/control-socket";
import { SHUTDOWN_MESSAGE, runPrimary } from "./cluster";
import { loadConfigOrExit, type AppConfig } from "./config";
import { endOtherLeases } from "./lib/instance-lease";
import { DatabaseOpeningError } from "./lib/database-url";
import { DataDirInUseError, DataDirNotPrivateError, securePrivateDataDir } from "./lib/private-data-dir";
import { CatalogError } from "./modules/catalog/catalog-file";

const REQUIRED_NODE_MAJOR = 24;

/**
 * One serving process: alone, or one of WEB_CONCURRENCY workers. SIGTERM and SIGINT drain it:
 * readiness fails, the listener closes, requests in flight and the gateway's charge batches
 * finish, the database closes, and the process exits (docs/decisions/015).
 */
async function serve(config: AppConfig): Promise<void> {
  const app = await buildApp(config);
  if (app.database.kind === "pglite") {
    // This process owns the embedded database: any other lease is of the process before a restart.
    await endOtherLeases(app.db, app.instanceId, app.clock.now());
    const stopControlSocket = await startControlSocket(app);
    app.addHook("onClose", stopControlSocket);
  }
  let closing = false;
  const closer = closeWithGrace({ delay: config.shutdownTimeoutMs, logger: { error: (message: unknown) => app.log.error(message) } }, async ({ signal, err }) => {
    closing = true;
    if (err) app.log.error({ err }, "stopping after an unexpected error");
    app.log.info({ signal }, "shutting down: finishing requests in flight");
    app.lifecycle.startDraining();
    await app.close();
  });
  // A cluster's primary asks its workers to stop by message, not by signal: a worker that got the
  // signal itself too (Ctrl-C reaches the whole process group) would take a second one as "exit now".
  process.on("message", (message: { type?: string }) => {
    if (message?.type === SHUTDOWN_MESSAGE && !closing) closer.close();
  });
  const url = await app.listen({ port: config.port, host: config.host });
  if (!cluster.isWorker) app.log.info({ url, workers: 1, node: process.version }, "ready");
}

async function main(): Promise<void> {
  const major = Number(process.versions.node.split(".")[0]);
  if (major < REQUIRED_NODE_MAJOR) {
    console.error(
      `Node ${process.version} is too old: Tollgate needs Node ${REQUIRED_NODE_MAJOR}. Start it with \`npm start\`, or with node_modules/.bin/node (the \`node\` dependency).`,
    );
    process.exit(1);
  }
  const config = loadConfigOrExit();
  securePrivateDataDir(config.dataDir);
  if (config.webConcurrency > 1 && cluster.isPrimary) await runPrimary(config);
  else await serve(config);
}

/** The operator's mistakes (and a database out of reach), each said in full by its message: a stack trace would only hide it. */
const CONFIGURATION_ERRORS = [DataDirNotPrivateError, DataDirInUseError, CatalogError, DatabaseOpeningError];

main().catch((error: unknown) => {
  console.error(CONFIGURATION_ERRORS.some((type) => error instanceof type) ? (error as Error).message : error);
  process.exit(1);
});
