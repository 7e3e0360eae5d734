import type { FastifyInstance } from "fastify";
import { and, asc, eq, gt } from "drizzle-orm";
import { redemptionFailures } from "../../db/schema/index";
import { AppError } from "../../errors";
import { HOUR_MS, nextAllowedAt } from "../auth/rate-limits";

/**
 * Failed redemptions count against the user and against the IP for an hour; past the limit,
 * attempts get 429 until enough failures have left the window. Successful redemptions are free,
 * so a customer with a stack of codes is never slowed down. The rows stay as the record of
 * failed attempts an operator can look into.
 */
export function redeemLimiter(app: FastifyInstance) {
  async function refuseWhenOver(where: ReturnType<typeof eq>, limit: number): Promise<void> {
    const now = app.clock.now();
    const rows = await app.db
      .select({ at: redemptionFailures.createdAt })
      .from(redemptionFailures)
      .where(and(where, gt(redemptionFailures.createdAt, new Date(now.getTime() - HOUR_MS))))
      .orderBy(asc(redemptionFailures.createdAt));
    const allowedAt = nextAllowedAt(
      rows.map((r) => r.at),
      limit,
      HOUR_MS,
      now,
    );
    if (!allowedAt) return;
    const waitMs = allowedAt.getTime() - now.getTime();
    throw AppError.tooManyRequests(
      `too many failed redemption attempts, try again in ${Math.max(1, Math.ceil(waitMs / 60_000))} minutes`,
      waitMs / 1000,
    );
  }

  return {
    async check(userId: number, ip: string): Promise<void> {
      await refuseWhenOver(eq(redemptionFailures.userId, userId), app.config.money.redeemFailuresPerUserPerHour);
      await refuseWhenOver(eq(redemptionFailures.ip, ip), app.config.money.redeemFailuresPerIpPerHour);
    },
    async recordFailure(userId: number, ip: string, reason: string): Promise<void> {
      await app.db.insert(redemptionFailures).values({ userId, ip, reason, createdAt: app.clock.now() });
    },
  };
}
