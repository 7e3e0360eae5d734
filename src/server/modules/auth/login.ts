import type { FastifyInstance, FastifyRequest } from "fastify";
import { AUTH_ERROR_CODES, INVALID_CODE_MESSAGE, type LoginRequest, type LoginResponse } from "../../../shared/auth";
import { AppError } from "../../errors";
import { findOrCreateUser } from "./accounts";
import { recordAuthEvent } from "./audit";
import { checkAndConsumeCode, LOGIN_PURPOSE, requestPhone } from "./codes";
import { lockedUntil, recordLoginFailure } from "./lockout";
import { PHONE_REFUSALS, waitText } from "./messages";
import { lockRateKeys } from "./rate-limits";
import { createSession } from "./sessions";

/**
 * POST /auth/phone/login: one flow for login and sign-up. The phone's lock serialises its logins,
 * the code is consumed by the statement that accepts it, and user, session and consumption
 * commit together. A code that does not match counts against the code (dead after the maximum
 * attempts) and against the phone (locked after too many failures) — recorded although the
 * answer is a 400, because forgetting failed guesses would make guessing free.
 */
export async function login(app: FastifyInstance, request: FastifyRequest, body: LoginRequest): Promise<LoginResponse> {
  const secret = app.config.sessionSecret;
  const { phone, target } = requestPhone(secret, body.telephone);
  const { limits } = app.config.auth;
  const now = app.clock.now();

  const outcome = await app.db.transaction(async (tx) => {
    await lockRateKeys(tx, [`phone:${target}`]);
    const locked = await lockedUntil(tx, target, now, limits);
    if (locked) return { kind: "locked", until: locked } as const;
    const check = await checkAndConsumeCode(tx, { secret, target, purpose: LOGIN_PURPOSE, code: body.code, now, maxAttempts: limits.codeMaxAttempts });
    if (check !== "accepted") {
      const guessed = check === "mismatch" || check === "no_code";
      const lockedNow = guessed && (await recordLoginFailure(tx, target, now, limits));
      return { kind: "failed", reason: check, lockedNow } as const;
    }
    const user = await findOrCreateUser(tx, { phone, recommendCode: body.recommendCode, now });
    const session = await createSession(tx, { userId: user.userId, ip: request.ip, userAgent: request.headers["user-agent"], now });
    return { kind: "ok", ...user, token: session.token } as const;
  });

  switch (outcome.kind) {
    case "locked": {
      await recordAuthEvent(app.db, request, { type: "login_failed", at: now, reason: "locked", phone });
      const waitMs = outcome.until.getTime() - now.getTime();
      throw new AppError(429, AUTH_ERROR_CODES.phoneLocked, PHONE_REFUSALS.locked(waitText(waitMs)), {
        "retry-after": String(Math.max(1, Math.ceil(waitMs / 1000))),
      });
    }
    case "failed":
      await recordAuthEvent(app.db, request, { type: "login_failed", at: now, reason: outcome.reason, phone });
      if (outcome.lockedNow) await recordAuthEvent(app.db, request, { type: "lockout", at: now, phone });
      throw AppError.badRequest(INVALID_CODE_MESSAGE, AUTH_ERROR_CODES.invalidCode);
    case "ok":
      await recordAuthEvent(app.db, request, {
        type: "login_succeeded",
        at: now,
        reason: outcome.created ? "signup" : undefined,
        phone,
        userId: outcome.userId,
      });
      return { csrf_token: outcome.token };
  }
}
