import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import type { Database, Db } from "../db/client";

declare module "fastify" {
  interface FastifyInstance {
    db: Db;
    database: Database;
  }
}

/** The open, migrated database: `app.db` for queries, `app.database` for its kind, listeners and close. */
export default fp(
  async function dbPlugin(app: FastifyInstance, opts: { database: Database }) {
    app.decorate("database", opts.database);
    app.decorate("db", opts.database.db);
  },
  { name: "db" },
);
