import type { FastifyInstance } from "fastify";
import { lt } from "drizzle-orm";
import { authCaptchaUses } from "../../db/schema/index";
import { purgeCodes } from "./codes";
import { purgeKnownClients } from "./login-client";
import { purgeExpiredSessions } from "./sessions";
import { DAY_MS, HOUR_MS, purgeRateEvents } from "./rate-limits";

/**
 * Drops what no limit or check can look at any more: old rate events, expired captcha uses and
 * codes, forgotten browsers, expired sessions.
 */
export async function sweepAuthState(app: FastifyInstance): Promise<void> {
  const now = app.clock.now().getTime();
  const keepEvents = DAY_MS + HOUR_MS;
  await app.db.transaction(async (tx) => {
    await purgeRateEvents(tx, new Date(now - keepEvents));
    await tx.delete(authCaptchaUses).where(lt(authCaptchaUses.expiresAt, new Date(now)));
    await purgeCodes(tx, new Date(now - DAY_MS));
    await purgeKnownClients(tx, new Date(now));
    await purgeExpiredSessions(tx, new Date(now));
  });
}

export function scheduleAuthSweep(app: FastifyInstance): void {
  app.every("auth sweep", HOUR_MS, () => sweepAuthState(app));
}
