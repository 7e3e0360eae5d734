import { z } from "zod";
import { BEIJING_OFFSET_MS } from "./beijing-time";

const BEIJING_OFFSET_MINUTES = BEIJING_OFFSET_MS / 60_000;

/** GET /api/v1/console/referrals */
export const referralsSchema = z.object({
  code: z.string().describe("The user's referral code"),
  link: z.string().describe("PUBLIC_URL/?r=<code>: sign-ups through it are credited to this user"),
  signups: z.number().int().describe("How many users signed up through the link"),
});
export type Referrals = z.infer<typeof referralsSchema>;

export const USAGE_DEFAULT_DAYS = 30;
export const USAGE_MAX_DAYS = 90;

/** GET /api/v1/console/usage */
export const usageQuerySchema = z.strictObject({
  days: z.coerce.number().int().min(1).max(USAGE_MAX_DAYS).default(USAGE_DEFAULT_DAYS).describe("How many days, ending today"),
  tzOffset: z.coerce
    .number()
    .int()
    .min(-840)
    .max(840)
    .default(BEIJING_OFFSET_MINUTES)
    .describe("The reader's time zone in minutes east of UTC, so days start at their midnight; by default 480, Beijing time, as every other date the API gives"),
});

export const usageDaySchema = z.object({
  date: z.string().describe("YYYY-MM-DD in the reader's time zone"),
  calls: z.number().int(),
  spend: z.string().describe("Decimal amount charged that day"),
});
export type UsageDay = z.infer<typeof usageDaySchema>;

export const usageSchema = z.object({
  days: z.array(usageDaySchema).describe("Every day of the range, oldest first, zero when nothing was charged"),
  totals: z.object({ calls: z.number().int(), spend: z.string() }),
});
export type Usage = z.infer<typeof usageSchema>;

/** GET /api/v1/console/runway */
export const runwaySchema = z.object({
  balance: z.string().describe("Decimal balance now"),
  spendLast7Days: z.string().describe("Charged less refunded over the last 7 × 24 hours"),
  averageDailySpend: z.string().describe("spendLast7Days ÷ 7, rounded down to the micro-unit, as a decimal"),
  days: z.number().int().nullable().describe("Whole days the balance lasts at that average (balance × 7 ÷ spend, rounded down); null when there was no spend"),
});
export type Runway = z.infer<typeof runwaySchema>;
