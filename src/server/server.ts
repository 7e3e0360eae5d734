import { buildApp } from "./app";
import { startControlSocket } from "./cli/control-socket";
import { loadConfigOrExit } from "./config";
import { DataDirNotPrivateError, securePrivateDataDir } from "./lib/private-data-dir";

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  securePrivateDataDir(config.dataDir);
  const app = await buildApp(config);
  if (app.database.kind === "pglite") {
    const stopControlSocket = await startControlSocket(app);
    app.addHook("onClose", stopControlSocket);
  }
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, "shutting down: finishing requests in flight");
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
  await app.listen({ port: config.port, host: config.host });
}

main().catch((error: unknown) => {
  console.error(error instanceof DataDirNotPrivateError ? error.message : error);
  process.exit(1);
});
