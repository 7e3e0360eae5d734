import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import type { Clock } from "../clock";
import type { AppConfig } from "../config";
import type { Database, Db } from "../db/client";

declare module "fastify" {
  interface FastifyInstance {
    config: AppConfig;
    db: Db;
    database: Database;
    clock: Clock;
  }
}

export default fp(
  async function dbPlugin(app: FastifyInstance, opts: { config: AppConfig; database: Database; clock: Clock }) {
    app.decorate("config", opts.config);
    app.decorate("database", opts.database);
    app.decorate("db", opts.database.db);
    app.decorate("clock", opts.clock);
  },
  { name: "db" },
);
