import { and, eq, gt, lt, ne } from "drizzle-orm";
import type { Db } from "../db/client";
import { instanceLeases } from "../db/schema/index";

/**
 * A server process's lease on being alive: renewed on a timer, it runs out `leaseMs` after the
 * last renewal of a process that died. What a process holds (its Idempotency-Key claims) names its
 * instance id, so another process can tell a holder that stopped from one still at work. Times are
 * the app's clock: processes sharing a database must keep their clocks in step (NTP) to well
 * within a lease. Only a lease that ran out says its holder is gone; a missing row says nothing
 * (a process whose first renewal has not landed yet, or one forgotten long ago).
 */
export async function renewLease(db: Db, lease: { id: string; now: Date; leaseMs: number }): Promise<void> {
  const expiresAt = new Date(lease.now.getTime() + lease.leaseMs);
  await db
    .insert(instanceLeases)
    .values({ id: lease.id, startedAt: lease.now, expiresAt })
    .onConflictDoUpdate({ target: instanceLeases.id, set: { expiresAt } });
}

/** A process stopping for good: what it still holds may be resolved at once. */
export async function endLease(db: Db, id: string, now: Date): Promise<void> {
  await db.update(instanceLeases).set({ expiresAt: now }).where(eq(instanceLeases.id, id));
}

/**
 * On the embedded database, which one process owns, every other lease belongs to a process that is
 * gone (the one before a restart): they end now rather than when they run out.
 */
export async function endOtherLeases(db: Db, id: string, now: Date): Promise<void> {
  await db
    .update(instanceLeases)
    .set({ expiresAt: now })
    .where(and(ne(instanceLeases.id, id), gt(instanceLeases.expiresAt, now)));
}

/**
 * Forgets leases that ran out before `before`: pass a time no claim of theirs can be younger than
 * (the abandoned-call window, which resolves such claims by their age alone).
 */
export async function forgetLeasesEndedBefore(db: Db, before: Date): Promise<void> {
  await db.delete(instanceLeases).where(lt(instanceLeases.expiresAt, before));
}
