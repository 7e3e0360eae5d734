import type { FastifyBaseLogger } from "fastify";
import { eq } from "drizzle-orm";
import { AUTH_ERROR_CODES, type CodeResponse } from "#shared/auth";
import type { AuthLimits } from "./config";
import type { Db } from "../../db/client";
import { authCaptchaUses } from "../../db/schema/index";
import { AppError } from "../../errors";
import { waitText } from "../../lib/wait-text";
import type { CaptchaProvider } from "../../providers/captcha/index";
import { ProviderFailure } from "../../providers/http";
import type { SmsProvider } from "../../providers/sms/index";
import { recordAuthEvent, type RequestOrigin } from "./audit";
import { codeHmac, generateCode, LOGIN_PURPOSE, withdrawCode } from "./codes";
import { CAPTCHA_FAILED, CAPTCHA_UNAVAILABLE, CODE_SENT, IP_LIMITED, PHONE_REFUSALS, SEND_FAILED } from "./messages";
import { CAPTCHA_FAILURES_PER_IP_PER_HOUR, countIpRequest, reserveCode, uncountForCaptcha } from "./code-limits";
import { deleteRateEvents } from "./rate-limits";

export interface AuthProviders {
  sms: SmsProvider;
  captcha: CaptchaProvider;
}

/**
 * POST /auth/phone/verification_code, in the order: the phone (read by the route), the
 * IP's limits, the captcha, then the phone's cooldown and caps and the global SMS budget, then the
 * SMS. The code is bound to the asking browser's `login_client` cookie. A request whose captcha is
 * refused counts as a refused captcha of the IP's, not as one of its code requests.
 * Every answer is the same whether or not the phone belongs to a user. Refusals about the phone
 * are `status: "failed"` with when to retry; an IP over its limits gets 429. When the SMS cannot
 * go out, everything this request recorded is taken back before the error answer (a 5xx means
 * nothing changed, so the client's retry starts afresh).
 */
export async function requestCode(
  db: Db,
  providers: AuthProviders,
  input: {
    /** The phone as `requestPhone` read it, and its key. */
    phone: string;
    target: string;
    captchaResult: string;
    /** The asking browser's login-client key; the route issues its cookie first when it has none. */
    client: string;
    origin: RequestOrigin;
    now: Date;
    secret: string;
    limits: AuthLimits;
    log: FastifyBaseLogger;
  },
): Promise<CodeResponse> {
  const { phone, target, client, origin, now, secret, limits, log } = input;
  const { ip } = origin;
  const refuse = (reason: string) => recordAuthEvent(db, origin, { type: "code_refused", at: now, reason, phone });

  // altcha is checked here, without a provider's API to spare.
  const captchaFailureCap = providers.captcha.name === "altcha" ? null : CAPTCHA_FAILURES_PER_IP_PER_HOUR;
  const ipCheck = await db.transaction((tx) => countIpRequest(tx, { ip, target, now, limits, captchaFailureCap }));
  if (ipCheck.kind === "refused") {
    await refuse(ipCheck.reason);
    throw AppError.tooManyRequests(IP_LIMITED, (ipCheck.retryAt.getTime() - now.getTime()) / 1000);
  }
  const takeBackIpEvent = () => db.transaction((tx) => deleteRateEvents(tx, [ipCheck.eventId]));

  let verdict;
  try {
    verdict = await providers.captcha.verify(input.captchaResult, { ip, now });
  } catch (error) {
    await takeBackIpEvent();
    if (!(error instanceof ProviderFailure)) throw error;
    log.warn({ err: error }, "captcha provider unavailable");
    await refuse("captcha_unavailable");
    throw new AppError(503, AUTH_ERROR_CODES.captchaUnavailable, CAPTCHA_UNAVAILABLE);
  }
  const captchaRefused = async (reason: string): Promise<CodeResponse> => {
    await db.transaction((tx) => uncountForCaptcha(tx, { ip, requestEventId: ipCheck.eventId, now }));
    await refuse(reason);
    return { status: "failed", message: CAPTCHA_FAILED, reason: "captcha_failed" };
  };
  if (!verdict.ok) return captchaRefused(`captcha_${verdict.reason}`);

  const code = generateCode();
  const hmac = codeHmac(secret, target, LOGIN_PURPOSE, code);
  const reserved = await db.transaction((tx) => reserveCode(tx, { target, client, codeHmac: hmac, captcha: verdict, now, limits }));
  if (reserved.kind === "replayed") return captchaRefused("captcha_replayed");
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
    await providers.sms.sendVerificationCode({ phone, code, ttlMinutes: Math.ceil(limits.codeTtlSeconds / 60), now, log });
  } catch (error) {
    await db.transaction(async (tx) => {
      await withdrawCode(tx, { target, purpose: LOGIN_PURPOSE, client, hmac });
      await deleteRateEvents(tx, [reserved.sentEventId, ipCheck.eventId]);
      await tx.delete(authCaptchaUses).where(eq(authCaptchaUses.id, verdict.id));
    });
    log.warn({ err: error }, "verification SMS not sent");
    await refuse("send_failed");
    throw new AppError(502, AUTH_ERROR_CODES.smsFailed, SEND_FAILED);
  }
  await recordAuthEvent(db, origin, { type: "code_sent", at: now, phone });
  return { status: "success", message: CODE_SENT };
}
