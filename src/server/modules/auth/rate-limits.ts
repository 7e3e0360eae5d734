import { and, asc, eq, gt, lt, max, ne } from "drizzle-orm";
import type { Tx } from "../../db/client";
import { authRateEvents } from "../../db/schema/index";

/** What auth_rate_events counts, each under its own key. */
export const RATE_EVENTS = {
  /**
   * A code sent to a phone (key: phone key, or `phone key:client` for a browser that logged in to
   * it before). Also what the global SMS budget counts.
   */
  codeSent: "code_sent",
  /** A code request answered for an IP (key: IP; subject: phone key). */
  ipCodeRequest: "ip_code_request",
  /** A login whose code did not match (key: IP). */
  loginFailure: "login_failure",
  /** A code request whose captcha was refused (key: IP). */
  captchaFailure: "captcha_failure",
} as const;

type RateEvent = (typeof RATE_EVENTS)[keyof typeof RATE_EVENTS];

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

export async function deleteRateEvents(tx: Tx, ids: number[]): Promise<void> {
  for (const id of ids) await tx.delete(authRateEvents).where(eq(authRateEvents.id, id));
}

export async function purgeRateEvents(tx: Tx, olderThan: Date): Promise<void> {
  await tx.delete(authRateEvents).where(lt(authRateEvents.at, olderThan));
}
