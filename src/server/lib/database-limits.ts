import { sql } from "drizzle-orm";
import type { Tx } from "../db/client";

/*
 * What the limits kept in the database share (login codes, logins, redemptions: decision 007):
 * sliding windows, checked and recorded under advisory locks. Limits kept in memory or Redis are
 * lib/rate-limiter.ts's.
 */

export const HOUR_MS = 3600_000;
export const DAY_MS = 24 * HOUR_MS;

/**
 * Serialises the transactions that check and then record the same keys, so two requests cannot
 * both pass a limit with one place left. Locks are taken in a fixed order and released at commit.
 */
export async function lockRateKeys(tx: Tx, keys: string[]): Promise<void> {
  for (const key of [...keys].sort()) {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`limit:${key}`}, 0))`);
  }
}

/**
 * For `times` (oldest first) inside a sliding window: when the next event would be allowed, or
 * null if it is allowed now. With `limit` events in the window, the next fits once the oldest
 * of the most recent `limit` has left it.
 */
export function nextAllowedAt(times: Date[], limit: number, windowMs: number, now: Date): Date | null {
  if (times.length < limit) return null;
  const blocking = times[times.length - limit]!;
  const at = new Date(blocking.getTime() + windowMs);
  return at > now ? at : null;
}
