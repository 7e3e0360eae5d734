import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { pingDatabase } from "../../db/client";
import { takeAllowance } from "../../lib/rate-limiter";

/**
 * How long a dependency's answer stands. Polls within it share one check, so however many clients
 * poll, the database gets at most one round trip from them a second; a load balancer sees a
 * failure at most this much later.
 */
export const CHECK_RESULT_TTL_MS = 1000;
/**
 * Health and readiness polls one IP may make a minute, the two routes together: a load balancer
 * checking both every second uses 120, and an anonymous loop no more than this.
 */
export const HEALTH_POLLS_PER_IP_PER_MINUTE = 300;

const healthResponse = z.object({
  status: z.enum(["ok", "degraded"]),
  database: z.object({ reachable: z.boolean(), kind: z.enum(["pglite", "postgres"]) }),
});

const readyResponse = z.object({
  status: z.enum(["ready", "not_ready"]),
  draining: z.boolean(),
  /** Each dependency and whether it answered: `database` always, others as configured (e.g. `redis`). */
  checks: z.record(z.string(), z.boolean()),
});

const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  /**
   * Whether each dependency answered its last check. A failure is logged with its cause once, when
   * the dependency stops answering, and its return once: a load balancer polling every second must
   * not write a line per poll.
   */
  const answered = new Map<string, boolean>();
  const check = async (name: string, run: () => Promise<boolean>): Promise<boolean> => {
    let cause: unknown;
    const ok = await run().catch((error: unknown) => {
      cause = error;
      return false;
    });
    const before = answered.get(name);
    answered.set(name, ok);
    if (ok && before === false) app.log.info({ check: name }, `readiness: ${name} answers again`);
    if (!ok && before !== false) app.log.warn({ check: name, err: cause ?? new Error(`the ${name} check answered no`) }, `readiness: ${name} does not answer`);
    return ok;
  };
  /** The last answer of each check while it stands, also while it is still under way. */
  const held = new Map<string, { at: number; answer: Promise<boolean> }>();
  const recent = (name: string, run: () => Promise<boolean>): Promise<boolean> => {
    const now = app.clock.now().getTime();
    const last = held.get(name);
    if (last && now >= last.at && now - last.at < CHECK_RESULT_TTL_MS) return last.answer;
    const answer = check(name, run);
    held.set(name, { at: now, answer });
    return answer;
  };
  // Anyone may poll these, so each IP has an allowance of its own.
  app.addHook("onRequest", async (request) => {
    await takeAllowance(app.rateLimiter, {
      key: `health:${request.ip}`,
      limit: HEALTH_POLLS_PER_IP_PER_MINUTE,
      per: "minute",
      what: "health and readiness checks",
      nowMs: app.clock.now().getTime(),
    });
  });
  const databaseAnswers = async () => {
    let cause: unknown;
    if (await pingDatabase(app.db, (error) => (cause = error))) return true;
    throw cause;
  };

  app.get(
    "/health",
    { schema: { tags: ["system"], summary: "Liveness and database reachability", response: { 200: healthResponse, 503: healthResponse } } },
    async (_request, reply) => {
      const reachable = await recent("database", databaseAnswers);
      return reply
        .code(reachable ? 200 : 503)
        .header("cache-control", "no-store")
        .send({ status: reachable ? "ok" : "degraded", database: { reachable, kind: app.database.kind } });
    },
  );

  app.get(
    "/ready",
    {
      schema: {
        tags: ["system"],
        summary: "Readiness: 503 while the database (or another configured dependency) is unreachable or the process is shutting down",
        response: { 200: readyResponse, 503: readyResponse },
      },
    },
    async (_request, reply) => {
      const named = [["database", databaseAnswers] as const, ...app.lifecycle.readinessChecks];
      const results = await Promise.all(named.map(async ([name, run]) => [name, await recent(name, run)] as const));
      const checks = Object.fromEntries(results);
      const draining = app.lifecycle.draining;
      const ready = !draining && results.every(([, ok]) => ok);
      return reply
        .code(ready ? 200 : 503)
        .header("cache-control", "no-store")
        .send({ status: ready ? "ready" : "not_ready", draining, checks });
    },
  );
};

export default healthRoutes;
