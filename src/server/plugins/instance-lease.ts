import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { endLease, forgetLeasesEndedBefore, renewLease } from "../lib/instance-lease";

declare module "fastify" {
  interface FastifyInstance {
    /** This process's id in `instance_leases`, which its Idempotency-Key claims carry. */
    instanceId: string;
  }
}

/**
 * Holds this process's lease (INSTANCE_LEASE_SECONDS), taken at start and renewed every third of
 * it; a clean stop ends it. The first renewal is not waited for: until it lands, this process's
 * claims read as held by a process not known to be gone. A renewal that comes after the lease ran
 * out (the event loop or the database stalled that long) is logged: retries may meanwhile have
 * taken over calls this process was still running (docs/decisions/046).
 */
export default fp(
  async function instanceLeasePlugin(app: FastifyInstance) {
    const id = randomUUID();
    const leaseMs = app.config.instanceLeaseMs;
    app.decorate("instanceId", id);
    let heldUntil = Infinity;
    const renew = async () => {
      const now = app.clock.now();
      if (now.getTime() > heldUntil) app.log.warn({ lapsedMs: now.getTime() - heldUntil }, "this process's lease ran out before it was renewed; retries may have taken over calls it was running");
      await renewLease(app.db, { id, now, leaseMs });
      heldUntil = now.getTime() + leaseMs;
    };
    const first = renew().catch((error: unknown) => app.log.error({ err: error }, "could not take this process's lease; the next renewal tries again"));
    app.every("renew this process's lease", Math.max(1000, Math.floor(leaseMs / 3)), async () => {
      await renew();
      await forgetLeasesEndedBefore(app.db, new Date(app.clock.now().getTime() - app.config.gatewayAbandonedAfterMs));
    });
    app.addHook("onClose", async () => {
      await first;
      await endLease(app.db, id, app.clock.now()).catch((error: unknown) => app.log.warn({ err: error }, "could not end this process's lease; it runs out by itself"));
    });
  },
  { name: "instance-lease", dependencies: ["config", "db", "scheduler"] },
);
