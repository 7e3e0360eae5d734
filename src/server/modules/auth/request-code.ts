import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { eq } from "drizzle-orm";
import { AUTH_ERROR_CODES, type CodeRequest, type CodeResponse } from "#shared/auth";
import { authCaptchaUses } from "../../db/schema/index";
import { AppError } from "../../errors";
import type { CaptchaProvider } from "../../providers/captcha/index";
import { ProviderFailure } from "../../providers/http";
import type { SmsProvider } from "../../providers/sms/index";
import { recordAuthEvent } from "./audit";
import { codeHmac, generateCode, LOGIN_PURPOSE, requestPhone, withdrawCode } from "./codes";
import { CAPTCHA_FAILED, CAPTCHA_UNAVAILABLE, CODE_SENT, IP_LIMITED, PHONE_REFUSALS, SEND_FAILED, waitText } from "./messages";
import { countIpRequest, reserveCode } from "./code-limits";
import { ensureLoginClient } from "./login-client";
import { deleteRateEvents } from "./rate-limits";

export interface AuthProviders {
  sms: SmsProvider;
  captcha: CaptchaProvider;
}

/**
 * POST /auth/phone/verification_code, in the order: the phone, the IP's limits, the
 * captcha, then the phone's cooldown and caps and the global SMS budget, then the SMS. The code is
 * bound to the asking browser's `login_client` cookie, issued here when it has none.
 * Every answer is the same whether or not the phone belongs to a user. Refusals about the phone
 * are `status: "failed"` with when to retry; an IP over its limits gets 429. When the SMS cannot
 * go out, everything this request recorded is taken back before the error answer (a 5xx means
 * nothing changed, so the client's retry starts afresh).
 */
export async function requestCode(
  app: FastifyInstance,
  providers: AuthProviders,
  request: FastifyRequest,
  reply: FastifyReply,
  body: CodeRequest,
): Promise<CodeResponse> {
  const secret = app.config.sessionSecret;
  const { phone, target } = requestPhone(secret, body.telephone);
  const client = ensureLoginClient(secret, request, reply, app.config.publicUrl.startsWith("https:"));
  const { limits } = app.config.auth;
  const now = app.clock.now();
  const ip = request.ip;
  const refuse = (reason: string) => recordAuthEvent(app.db, request, { type: "code_refused", at: now, reason, phone });

  const ipCheck = await app.db.transaction((tx) => countIpRequest(tx, { ip, target, now, limits }));
  if (ipCheck.kind === "refused") {
    await refuse(ipCheck.reason);
    throw AppError.tooManyRequests(IP_LIMITED, (ipCheck.retryAt.getTime() - now.getTime()) / 1000);
  }
  const takeBackIpEvent = () => app.db.transaction((tx) => deleteRateEvents(tx, [ipCheck.eventId]));

  let verdict;
  try {
    verdict = await providers.captcha.verify(body.captchaResult, { ip, now });
  } catch (error) {
    await takeBackIpEvent();
    if (!(error instanceof ProviderFailure)) throw error;
    request.log.warn({ err: error }, "captcha provider unavailable");
    await refuse("captcha_unavailable");
    throw new AppError(503, AUTH_ERROR_CODES.captchaUnavailable, CAPTCHA_UNAVAILABLE);
  }
  if (!verdict.ok) {
    await refuse(`captcha_${verdict.reason}`);
    return { status: "failed", message: CAPTCHA_FAILED, reason: "captcha_failed" };
  }

  const code = generateCode();
  const hmac = codeHmac(secret, target, LOGIN_PURPOSE, code);
  const reserved = await app.db.transaction((tx) => reserveCode(tx, { target, client, codeHmac: hmac, captcha: verdict, now, limits }));
  if (reserved.kind === "replayed") {
    await refuse("captcha_replayed");
    return { status: "failed", message: CAPTCHA_FAILED, reason: "captcha_failed" };
  }
  if (reserved.kind === "refused") {
    await refuse(reserved.reason);
    const waitMs = reserved.retryAt.getTime() - now.getTime();
    return {
      status: "failed",
      message: PHONE_REFUSALS[reserved.reason](waitText(waitMs)),
      reason: reserved.reason,
      retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
    };
  }

  try {
    await providers.sms.sendVerificationCode({ phone, code, ttlMinutes: Math.ceil(limits.codeTtlSeconds / 60), now, log: request.log });
  } catch (error) {
    await app.db.transaction(async (tx) => {
      await withdrawCode(tx, { target, purpose: LOGIN_PURPOSE, client, hmac });
      await deleteRateEvents(tx, [reserved.sentEventId, ipCheck.eventId]);
      await tx.delete(authCaptchaUses).where(eq(authCaptchaUses.id, verdict.id));
    });
    request.log.warn({ err: error }, "verification SMS not sent");
    await refuse("send_failed");
    throw new AppError(502, AUTH_ERROR_CODES.smsFailed, SEND_FAILED);
  }
  await recordAuthEvent(app.db, request, { type: "code_sent", at: now, phone });
  return { status: "success", message: CODE_SENT };
}
