import { and, asc, eq, gt } from "drizzle-orm";
import type { Db, Tx } from "../../db/client";
import { redemptionFailures } from "../../db/schema/index";
import { AppError } from "../../errors";
import type { MoneyConfig } from "../payments/index";
import { HOUR_MS, lockRateKeys, nextAllowedAt } from "../../lib/database-limits";
import { waitText } from "../../lib/wait-text";

/** The reason an attempt carries while it runs; it becomes the error code, or the row goes. */
const PENDING = "pending";
/** How many times the IP's limit a user with no failure of their own in the hour may still try at. */
const IP_LIMIT_FOR_NEWCOMERS = 3;

export type RedeemLimits = Pick<MoneyConfig, "redeemFailuresPerUserPerHour" | "redeemFailuresPerIpPerHour">;

/** The failures of the last hour that match `where`, oldest first. */
async function failuresWithinHour(tx: Tx, where: ReturnType<typeof eq>, now: Date): Promise<Date[]> {
  const rows = await tx
    .select({ at: redemptionFailures.createdAt })
    .from(redemptionFailures)
    .where(and(where, gt(redemptionFailures.createdAt, new Date(now.getTime() - HOUR_MS))))
    .orderBy(asc(redemptionFailures.createdAt));
  return rows.map((r) => r.at);
}

/**
 * Takes a place for this attempt in the user's and the IP's counts, or refuses with 429; returns the place.
 *
 * Failed redemptions count against the user and against the IP for an hour; past the limit,
 * attempts get 429 until enough failures have left the window. An attempt takes its place in
 * both counts before the code is looked at, under the locks of both keys, so a burst of
 * concurrent attempts cannot all pass a limit with one place left (the OTP limits' way, decision
 * 007). A successful redemption gives its place back, so a customer with a stack of codes is never
 * slowed down. The rows stay as the record of failed attempts an operator can look into.
 *
 * The IP's count holds back a user who has failed in the hour too at its limit, and everyone at
 * three times it: an honest user behind the same NAT as someone guessing still redeems the code
 * they hold, and accounts taking turns from one address still meet a bound.
 */
export async function reserveRedeemAttempt(db: Db, input: { userId: number; ip: string; now: Date; limits: RedeemLimits }): Promise<number> {
  const { userId, ip, now, limits } = input;
  const outcome = await db.transaction(async (tx) => {
    await lockRateKeys(tx, [`redeem-user:${userId}`, `redeem-ip:${ip}`]);
    const usersFailures = await failuresWithinHour(tx, eq(redemptionFailures.userId, userId), now);
    const byUser = nextAllowedAt(usersFailures, limits.redeemFailuresPerUserPerHour, HOUR_MS, now);
    const ipLimit = limits.redeemFailuresPerIpPerHour * (usersFailures.length > 0 ? 1 : IP_LIMIT_FOR_NEWCOMERS);
    const byIp = byUser ?? nextAllowedAt(await failuresWithinHour(tx, eq(redemptionFailures.ip, ip), now), ipLimit, HOUR_MS, now);
    if (byIp) return { kind: "refused", until: byIp } as const;
    const [row] = await tx.insert(redemptionFailures).values({ userId, ip, reason: PENDING, createdAt: now }).returning({ id: redemptionFailures.id });
    return { kind: "reserved", attempt: row!.id } as const;
  });
  if (outcome.kind === "reserved") return outcome.attempt;
  const waitMs = outcome.until.getTime() - now.getTime();
  throw AppError.tooManyRequests(`too many failed redemption attempts, try again in ${waitText(waitMs)}`, waitMs / 1000);
}

/** The attempt failed for the user's code: its place stays, named after the error. */
export async function recordRedeemFailure(db: Db, attempt: number, reason: string): Promise<void> {
  await db.update(redemptionFailures).set({ reason }).where(eq(redemptionFailures.id, attempt));
}

/** The attempt succeeded, or failed for a reason that is not the code's: its place is given back. */
export async function releaseRedeemAttempt(db: Db, attempt: number): Promise<void> {
  await db.delete(redemptionFailures).where(eq(redemptionFailures.id, attempt));
}
