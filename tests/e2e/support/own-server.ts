import fs from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../../src/server/app";
import { loadConfig } from "../../../src/server/config";
import { emptyPostgresDatabase } from "../../../src/server/testing/server-process";
import type { TestServer } from "./auth";
import { E2E_WEB_ROOT } from "./e2e-env";

export interface OwnServer extends TestServer {
  app: FastifyInstance;
  close(): Promise<void>;
}

/**
 * A server of a spec's own, in this process, on the shared build and a database of its own, for
 * settings the suite's shared server does not have. `env` is given the spec's folder to write into.
 */
export async function startOwnServer(name: string, env: (folder: string) => Record<string, string> = () => ({})): Promise<OwnServer> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), `tollgate-${name}-`));
  const dataDir = path.join(folder, "data");
  let databaseUrl = "";
  let dropDatabase = async () => undefined as void;
  if (process.env.DATABASE_URL) {
    const database = await emptyPostgresDatabase();
    databaseUrl = database.url;
    dropDatabase = database.drop;
  }
  const app = await buildApp(
    loadConfig({
      ...process.env,
      NODE_ENV: "test",
      PORT: "0",
      HOST: "127.0.0.1",
      WEB_ROOT: E2E_WEB_ROOT,
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      SESSION_SECRET: `${name}-secret-0123456789abcdef0123456789`,
      LOG_LEVEL: "warn",
      ALTCHA_MAX_NUMBER: "2000",
      ...env(folder),
    }),
  );
  await app.listen({ port: 0, host: "127.0.0.1" });
  return {
    app,
    base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    dataDir,
    async close() {
      await app.close();
      await dropDatabase();
    },
  };
}
