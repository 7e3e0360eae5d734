import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { createRateLimiter, type RateLimiter } from "../lib/rate-limiter";

declare module "fastify" {
  interface FastifyInstance {
    rateLimiter: RateLimiter;
  }
}

export default fp(
  async function rateLimiterPlugin(app: FastifyInstance) {
    const limiter = await createRateLimiter({
      redisUrl: app.config.redisUrl,
      keyPrefix: app.config.redisKeyPrefix,
      log: app.log,
      onRedisError: (operation) => app.metrics.redisError(operation),
    });
    if (!limiter.shared && app.database.kind === "postgres") {
      app.log.warn("REDIS_URL is unset: each server process enforces rate limits on its own, so N processes admit up to N times a limit");
    }
    if (limiter.reachable) app.lifecycle.addReadinessCheck("redis", limiter.reachable);
    app.decorate("rateLimiter", limiter);
    app.addHook("onClose", () => limiter.close());
  },
  { name: "rate-limiter", dependencies: ["config", "db", "lifecycle", "metrics"] },
);
