/**
 * An API key's spend limit counts over its lifetime, or per day or per month in Beijing time
 * (UTC+8, no daylight saving), resetting at the start of each period. The database computes the
 * same boundaries in `spend_period_start` (src/server/db/functions/spend_period_start.sql) when it
 * charges; the "period boundaries" test in src/server/modules/keys/spend-periods.test.ts holds the
 * two to the same answers on every instant the tests' clocks use and every Beijing midnight.
 */
import { BEIJING_OFFSET_MS } from "./beijing-time";

export const SPEND_LIMIT_PERIODS = ["lifetime", "day", "month"] as const;
export type SpendLimitPeriod = (typeof SPEND_LIMIT_PERIODS)[number];

/** When the period holding `at` began; null for a lifetime limit, which never resets. */
export function spendPeriodStart(period: SpendLimitPeriod, at: Date): Date | null {
  if (period === "lifetime") return null;
  const local = new Date(at.getTime() + BEIJING_OFFSET_MS);
  const day = period === "day" ? local.getUTCDate() : 1;
  return new Date(Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), day) - BEIJING_OFFSET_MS);
}

/** When the period holding `at` ends and the next begins; null for a lifetime limit. */
export function spendPeriodEnd(period: SpendLimitPeriod, at: Date): Date | null {
  const start = spendPeriodStart(period, at);
  if (!start) return null;
  const local = new Date(start.getTime() + BEIJING_OFFSET_MS);
  if (period === "day") local.setUTCDate(local.getUTCDate() + 1);
  else local.setUTCMonth(local.getUTCMonth() + 1);
  return new Date(local.getTime() - BEIJING_OFFSET_MS);
}
