import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";

/** A dependency the process needs to serve, for the readiness check: resolves true when reachable; a rejection (logged) counts as unreachable. */
export type ReadinessCheck = () => Promise<boolean>;

export interface Lifecycle {
  /** True from the moment the process begins to shut down: readiness fails, load balancers move on. */
  readonly draining: boolean;
  startDraining(): void;
  /** Adds a dependency to GET /api/v1/ready (the database is always checked), e.g. Redis when REDIS_URL is set. */
  addReadinessCheck(name: string, check: ReadinessCheck): void;
  readonly readinessChecks: ReadonlyMap<string, ReadinessCheck>;
}

declare module "fastify" {
  interface FastifyInstance {
    lifecycle: Lifecycle;
  }
}

export default fp(
  async function lifecyclePlugin(app: FastifyInstance) {
    const checks = new Map<string, ReadinessCheck>();
    let draining = false;
    app.decorate<Lifecycle>("lifecycle", {
      get draining() {
        return draining;
      },
      startDraining() {
        draining = true;
      },
      addReadinessCheck(name, check) {
        checks.set(name, check);
      },
      readinessChecks: checks,
    });
    app.addHook("preClose", async () => {
      draining = true;
      // Node closes the connections idle when the server closes, once. One whose call was still in
      // flight goes idle after, and its client may keep it open (up to the keep-alive time it was
      // told): it would hold the process past its last answer. Close those as they go idle.
      if (!app.server.listening) return;
      const closeIdle = setInterval(() => app.server.closeIdleConnections(), 100).unref();
      app.server.once("close", () => clearInterval(closeIdle));
    });
  },
  { name: "lifecycle" },
);
