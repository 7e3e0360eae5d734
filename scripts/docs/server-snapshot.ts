import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildApp } from "../../src/server/app";
import { loadConfig, type AppConfig } from "../../src/server/config";
import { openPglite, type Database } from "../../src/server/db/client";
import type { PublicTool } from "../../src/shared/catalog";
import type { OpenApiDocument } from "./openapi-types";
import { docsTool, type DocsTool } from "../../src/server/modules/site-pages/docs";

export interface ServerSnapshot {
  config: AppConfig;
  /** The console API as the server's own route schemas describe it. */
  openapi: OpenApiDocument;
  /** The operator's tool catalog, as the server's public catalog route answers it. */
  tools: DocsTool[];
}

/**
 * Starts the real app (in memory, not listening) with the build's environment and reads what
 * the docs are generated from, so they cannot drift from the server. It reads no rows: a test
 * passes the database it has open (`database`, left open), where a new one migrated from nothing
 * took PGlite most of a minute on a loaded machine.
 */
export async function snapshotServer(env: Record<string, string | undefined> = process.env, options: { database?: Database } = {}): Promise<ServerSnapshot> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-docs-"));
  const config = loadConfig({
    ...env,
    NODE_ENV: "development",
    DATABASE_URL: "",
    DATA_DIR: scratch,
    WEB_ROOT: path.join(scratch, "no-web-build"),
    SESSION_SECRET: randomBytes(32).toString("hex"),
    LOG_LEVEL: "silent",
  });
  const database = options.database ?? openPglite({});
  try {
    if (!options.database) await database.migrate();
    const app = await buildApp(config, { database, describeApi: true });
    try {
      await app.ready();
      const catalog = await app.inject({ method: "GET", url: "/api/v1/tools" });
      if (catalog.statusCode !== 200) throw new Error(`GET /api/v1/tools answered ${catalog.statusCode}: ${catalog.body}`);
      const tools = (catalog.json() as { tools: PublicTool[] }).tools.map((tool) => docsTool(tool, app.catalog.get(tool.id)?.handler));
      return { config, openapi: app.swagger() as OpenApiDocument, tools };
    } finally {
      await app.close();
    }
  } finally {
    if (!options.database) await database.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
