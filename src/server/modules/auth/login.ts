import { ACCOUNT_DISABLED_MESSAGE, AUTH_ERROR_CODES, INVALID_CODE_MESSAGE } from "#shared/auth";
import type { AuthLimits } from "./config";
import type { Db } from "../../db/client";
import { AppError } from "../../errors";
import { waitText } from "../../lib/wait-text";
import { findOrCreateUser } from "./accounts";
import { recordAuthEvent, type RequestOrigin } from "./audit";
import { checkAndConsumeCode, LOGIN_PURPOSE } from "./codes";
import { rememberClient } from "./login-client";
import { LOGIN_LIMITED } from "./messages";
import { HOUR_MS, lockRateKeys, nextAllowedAt } from "../../lib/database-limits";
import { RATE_EVENTS, rateEventTimes, recordRateEvent } from "./rate-limits";
import { createSession } from "./sessions";

/**
 * POST /auth/phone/login: one flow for login and sign-up. A code answers only to the browser that
 * asked for it (its `login_client` cookie), so guesses sent from anywhere else never touch it and
 * cannot lock its owner out (decision 017). The phone's lock serialises its logins, the code is
 * consumed by the statement that accepts it, and user, session and consumption commit together.
 * A code that does not match counts against the code (dead after the maximum attempts) and
 * against the IP (refused for the rest of the hour after too many) — recorded although the answer
 * is a 400, because forgetting failed guesses would make guessing free. A login with no code to
 * match (no login cookie, or no code asked for by this browser) guesses nothing and is not
 * counted: counted, it let anyone lock every login from a shared address for an hour.
 */
export async function login(
  db: Db,
  input: {
    /** The phone as `requestPhone` read it, and its key. */
    phone: string;
    target: string;
    code: string;
    recommendCode?: string | null;
    /** The asking browser's login-client key, or null when it sent no login cookie. */
    client: string | null;
    origin: RequestOrigin;
    now: Date;
    secret: string;
    limits: AuthLimits;
  },
): Promise<{ userId: number; sessionId: number; token: string }> {
  const { phone, target, client, origin, now, secret, limits } = input;
  const { ip } = origin;

  const outcome = await db.transaction(async (tx) => {
    await lockRateKeys(tx, [`phone:${target}`, `login-ip:${ip}`]);
    const failures = await rateEventTimes(tx, RATE_EVENTS.loginFailure, ip, new Date(now.getTime() - HOUR_MS));
    const limitedUntil = nextAllowedAt(failures, limits.loginFailuresPerIpPerHour, HOUR_MS, now);
    if (limitedUntil) return { kind: "limited", until: limitedUntil } as const;
    const check = client
      ? await checkAndConsumeCode(tx, { secret, target, purpose: LOGIN_PURPOSE, client, code: input.code, now, maxAttempts: limits.codeMaxAttempts })
      : "no_code";
    if (check !== "accepted") {
      if (check === "mismatch") await recordRateEvent(tx, { name: RATE_EVENTS.loginFailure, key: ip, at: now });
      return { kind: "failed", reason: client ? check : "no_client" } as const;
    }
    const user = await findOrCreateUser(tx, { phone, recommendCode: input.recommendCode, now });
    if (user.disabled) return { kind: "disabled", userId: user.userId } as const;
    const session = await createSession(tx, { userId: user.userId, ip, userAgent: origin.userAgent, now });
    await rememberClient(tx, target, client!, now);
    return { kind: "ok", ...user, ...session } as const;
  });

  switch (outcome.kind) {
    case "limited": {
      await recordAuthEvent(db, origin, { type: "login_failed", at: now, reason: "ip_limited", phone });
      const waitMs = outcome.until.getTime() - now.getTime();
      throw new AppError(429, AUTH_ERROR_CODES.loginLimited, LOGIN_LIMITED(waitText(waitMs)), {
        "retry-after": String(Math.max(1, Math.ceil(waitMs / 1000))),
      });
    }
    case "disabled":
      await recordAuthEvent(db, origin, { type: "login_failed", at: now, reason: "account_disabled", phone, userId: outcome.userId });
      throw new AppError(403, AUTH_ERROR_CODES.accountDisabled, ACCOUNT_DISABLED_MESSAGE);
    case "failed":
      await recordAuthEvent(db, origin, { type: "login_failed", at: now, reason: outcome.reason, phone });
      throw AppError.badRequest(INVALID_CODE_MESSAGE, AUTH_ERROR_CODES.invalidCode);
    case "ok":
      await recordAuthEvent(db, origin, {
        type: "login_succeeded",
        at: now,
        reason: outcome.created ? "signup" : undefined,
        phone,
        userId: outcome.userId,
      });
      return { userId: outcome.userId, sessionId: outcome.sessionId, token: outcome.token };
  }
}
