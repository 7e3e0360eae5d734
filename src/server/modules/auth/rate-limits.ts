import { and, asc, eq, gt, lt, max, ne, sql } from "drizzle-orm";
import type { Tx } from "../../db/client";
import { authRateEvents } from "../../db/schema/index";

export const HOUR_MS = 3600_000;
export const DAY_MS = 24 * HOUR_MS;

/** What auth_rate_events counts, each under its own key. */
export const RATE_EVENTS = {
  /**
   * A code sent to a phone (key: phone key, or `phone key:client` for a browser that logged in to
   * it before). Also what the global SMS budget counts.
   */
  codeSent: "code_sent",
  /** A code request answered for an IP (key: IP; subject: phone key). */
  ipCodeRequest: "ip_code_request",
  /** A login whose code did not match, or that had no code to match (key: IP). */
  loginFailure: "login_failure",
} as const;

type RateEvent = (typeof RATE_EVENTS)[keyof typeof RATE_EVENTS];

/**
 * Serialises the transactions that check and then record the same keys, so two requests cannot
 * both pass a limit with one place left. Locks are taken in a fixed order and released at commit.
 */
export async function lockRateKeys(tx: Tx, keys: string[]): Promise<void> {
  for (const key of [...keys].sort()) {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`auth:${key}`}, 0))`);
  }
}

export async function recordRateEvent(tx: Tx, event: { name: RateEvent; key: string; subject?: string; at: Date }): Promise<number> {
  const [row] = await tx.insert(authRateEvents).values(event).returning({ id: authRateEvents.id });
  return row!.id;
}

/** Times of the events under (name, key) after `since`, oldest first; `key` null counts every key. */
export async function rateEventTimes(tx: Tx, name: RateEvent, key: string | null, since: Date): Promise<Date[]> {
  const rows = await tx
    .select({ at: authRateEvents.at })
    .from(authRateEvents)
    .where(and(eq(authRateEvents.name, name), key === null ? undefined : eq(authRateEvents.key, key), gt(authRateEvents.at, since)))
    .orderBy(asc(authRateEvents.at));
  return rows.map((r) => r.at);
}

/** For each subject under (name, key) after `since` other than `besides`: when it was last seen, oldest first. */
export async function subjectsLastSeen(tx: Tx, name: RateEvent, key: string, since: Date, besides: string): Promise<Date[]> {
  const lastSeen = max(authRateEvents.at);
  const rows = await tx
    .select({ at: lastSeen })
    .from(authRateEvents)
    .where(and(eq(authRateEvents.name, name), eq(authRateEvents.key, key), gt(authRateEvents.at, since), ne(authRateEvents.subject, besides)))
    .groupBy(authRateEvents.subject)
    .orderBy(asc(lastSeen));
  return rows.flatMap((r) => (r.at ? [r.at] : []));
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

export async function deleteRateEvents(tx: Tx, ids: number[]): Promise<void> {
  for (const id of ids) await tx.delete(authRateEvents).where(eq(authRateEvents.id, id));
}

export async function purgeRateEvents(tx: Tx, olderThan: Date): Promise<void> {
  await tx.delete(authRateEvents).where(lt(authRateEvents.at, olderThan));
}
