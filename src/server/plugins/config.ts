import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import type { Clock } from "../clock";
import type { AppConfig } from "../config";

declare module "fastify" {
  interface FastifyInstance {
    config: AppConfig;
    clock: Clock;
  }
}

/** The app's settings and its clock (a manual one in tests). */
export default fp(
  async function configPlugin(app: FastifyInstance, opts: { config: AppConfig; clock: Clock }) {
    app.decorate("config", opts.config);
    app.decorate("clock", opts.clock);
  },
  { name: "config" },
);
