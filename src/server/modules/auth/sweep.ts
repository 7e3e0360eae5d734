import type { FastifyInstance } from "fastify";
import { lt } from "drizzle-orm";
import type { Db } from "../../db/client";
import { authCaptchaUses } from "../../db/schema/index";
import { purgeCodes } from "./codes";
import { purgeKnownClients } from "./login-client";
import { purgeExpiredSessions } from "./sessions";
import { DAY_MS, HOUR_MS } from "../../lib/database-limits";
import { purgeRateEvents } from "./rate-limits";

/**
 * Drops what no limit or check can look at any more: old rate events, expired captcha uses and
 * codes, forgotten browsers, expired sessions.
 */
export async function sweepAuthState(db: Db, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    await purgeRateEvents(tx, new Date(now.getTime() - DAY_MS - HOUR_MS));
    await tx.delete(authCaptchaUses).where(lt(authCaptchaUses.expiresAt, now));
    await purgeCodes(tx, new Date(now.getTime() - DAY_MS));
    await purgeKnownClients(tx, now);
    await purgeExpiredSessions(tx, now);
  });
}

export function scheduleAuthSweep(app: FastifyInstance): void {
  app.every("auth sweep", HOUR_MS, () => sweepAuthState(app.db, app.clock.now()));
}
