import { PassThrough } from "node:stream";
import type { FastifyInstance } from "fastify";
import { buildApp, type AppDeps } from "../app";
import { ManualClock } from "../clock";
import { loadConfig, type AppConfig } from "../config";
import type { Database } from "../db/client";
import { createTestDatabase } from "./test-database";

export interface TestApp {
  app: FastifyInstance;
  database: Database;
  clock: ManualClock;
  config: AppConfig;
  /** Every line the server logged, as written. */
  logs(): string;
  close(): Promise<void>;
}

export const TEST_SECRET = "test-secret-0123456789abcdef0123456789abcdef";

/** The real app on a fresh database, with a clock the test moves and the log captured. */
export async function createTestApp(
  env: Record<string, string> = {},
  options: { database?: Database; clock?: ManualClock; extraApiRoutes?: AppDeps["extraApiRoutes"] } = {},
): Promise<TestApp> {
  const config = loadConfig({
    NODE_ENV: "test",
    SESSION_SECRET: TEST_SECRET,
    LOG_LEVEL: "info",
    WEB_ROOT: "/nonexistent-web-root",
    DATA_DIR: "/tmp/tollgate-test-data",
    ...env,
  });
  const database = options.database ?? (await createTestDatabase());
  const clock = options.clock ?? new ManualClock(new Date("2026-03-01T08:00:00Z"));
  const stream = new PassThrough();
  let logText = "";
  stream.on("data", (chunk: Buffer) => (logText += chunk.toString("utf8")));
  const app = await buildApp(config, { database, clock, logStream: stream, extraApiRoutes: options.extraApiRoutes });
  await app.ready();
  return {
    app,
    database,
    clock,
    config,
    logs: () => logText,
    async close() {
      await app.close();
      if (!options.database) await database.close();
    },
  };
}
