import type { AuthLimits } from "./config";
import type { Tx } from "../../db/client";
import { authCaptchaUses } from "../../db/schema/index";
import { LOGIN_PURPOSE, storeCode } from "./codes";
import { isKnownClient } from "./login-client";
import type { PhoneRefusal } from "./messages";
import { DAY_MS, HOUR_MS, lockRateKeys, nextAllowedAt } from "../../lib/database-limits";
import { deleteRateEvents, RATE_EVENTS, rateEventTimes, recordRateEvent, subjectsLastSeen } from "./rate-limits";

const GLOBAL_BUDGET_KEY = "sms:budget";

function latest(...dates: (Date | null)[]): Date | null {
  return dates.reduce<Date | null>((a, b) => (b && (!a || b > a) ? b : a), null);
}

/**
 * Refused captchas an IP may send in an hour to a captcha checked by a provider's API: only a
 * request whose captcha passes counts against the IP's code requests, and this bounds how often
 * the provider is asked in vain. A captcha checked here (altcha) has no such cap: refusing garbage
 * costs nothing, and a cap would let garbage lock every browser at the address out of codes.
 */
export const CAPTCHA_FAILURES_PER_IP_PER_HOUR = 100;

/**
 * The IP's limits: code requests per hour, distinct phones per hour and, with `captchaFailureCap`,
 * refused captchas per hour. An allowed request is counted; `uncountForCaptcha` takes the count
 * back when its captcha is refused.
 */
export async function countIpRequest(tx: Tx, input: { ip: string; target: string; now: Date; limits: AuthLimits; captchaFailureCap: number | null }) {
  const { ip, target, now, limits, captchaFailureCap } = input;
  await lockRateKeys(tx, [`ip:${ip}`]);
  const hourAgo = new Date(now.getTime() - HOUR_MS);
  const requests = await rateEventTimes(tx, RATE_EVENTS.ipCodeRequest, ip, hourAgo);
  const otherPhones = await subjectsLastSeen(tx, RATE_EVENTS.ipCodeRequest, ip, hourAgo, target);
  const byCount = nextAllowedAt(requests, limits.perIpPerHour, HOUR_MS, now);
  const byPhones = nextAllowedAt(otherPhones, limits.phonesPerIpPerHour, HOUR_MS, now);
  const byCaptcha =
    captchaFailureCap === null ? null : nextAllowedAt(await rateEventTimes(tx, RATE_EVENTS.captchaFailure, ip, hourAgo), captchaFailureCap, HOUR_MS, now);
  const retryAt = latest(byCount, byPhones, byCaptcha);
  if (retryAt) return { kind: "refused", reason: byCount ? "ip_hourly" : byPhones ? "ip_phones" : "ip_captcha_failures", retryAt } as const;
  return { kind: "counted", eventId: await recordRateEvent(tx, { name: RATE_EVENTS.ipCodeRequest, key: ip, subject: target, at: now }) } as const;
}

/**
 * A request whose captcha was refused is not a code request of the IP's: its count goes, and a
 * refused captcha is counted instead. Counted as a request, ~50 requests with no captcha solved
 * locked every browser on a shared address out of codes for an hour.
 */
export async function uncountForCaptcha(tx: Tx, input: { ip: string; requestEventId: number; now: Date }) {
  await lockRateKeys(tx, [`ip:${input.ip}`]);
  await deleteRateEvents(tx, [input.requestEventId]);
  await recordRateEvent(tx, { name: RATE_EVENTS.captchaFailure, key: input.ip, at: input.now });
}

/**
 * Under the phone's and the budget's locks: claims the captcha result (single use), then checks
 * the phone's cooldown, hourly and daily caps and the global SMS budget. When all allow it, the
 * new code is stored for the asking browser and its sending counted. A browser that has logged
 * in to the phone before has caps of its own, apart from everyone else's (decision 017).
 */
export async function reserveCode(
  tx: Tx,
  input: { target: string; client: string; codeHmac: string; captcha: { id: string; validUntil: Date }; now: Date; limits: AuthLimits },
) {
  const { target, client, now, limits } = input;
  await lockRateKeys(tx, [`phone:${target}`, GLOBAL_BUDGET_KEY]);
  const claimed = await tx
    .insert(authCaptchaUses)
    .values({ id: input.captcha.id, usedAt: now, expiresAt: input.captcha.validUntil })
    .onConflictDoNothing()
    .returning({ id: authCaptchaUses.id });
  if (claimed.length === 0) return { kind: "replayed" } as const;
  const refusal = (reason: PhoneRefusal, retryAt: Date) => ({ kind: "refused", reason, retryAt }) as const;

  const quotaKey = (await isKnownClient(tx, target, client, now)) ? `${target}:${client}` : target;
  const dayAgo = new Date(now.getTime() - DAY_MS);
  const sentToday = await rateEventTimes(tx, RATE_EVENTS.codeSent, quotaKey, dayAgo);
  const last = sentToday.at(-1);
  if (last && last.getTime() + limits.resendSeconds * 1000 > now.getTime()) {
    return refusal("cooldown", new Date(last.getTime() + limits.resendSeconds * 1000));
  }
  const hourAgo = new Date(now.getTime() - HOUR_MS);
  const hourly = nextAllowedAt(
    sentToday.filter((at) => at > hourAgo),
    limits.perPhonePerHour,
    HOUR_MS,
    now,
  );
  if (hourly) return refusal("phone_hourly", hourly);
  const daily = nextAllowedAt(sentToday, limits.perPhonePerDay, DAY_MS, now);
  if (daily) return refusal("phone_daily", daily);
  const budget = nextAllowedAt(await rateEventTimes(tx, RATE_EVENTS.codeSent, null, dayAgo), limits.smsDailyBudget, DAY_MS, now);
  if (budget) return refusal("sms_budget", budget);

  await storeCode(tx, { target, purpose: LOGIN_PURPOSE, client, codeHmac: input.codeHmac, now, ttlSeconds: limits.codeTtlSeconds });
  return { kind: "reserved", sentEventId: await recordRateEvent(tx, { name: RATE_EVENTS.codeSent, key: quotaKey, at: now }) } as const;
}
