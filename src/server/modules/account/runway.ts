import { sql } from "drizzle-orm";
import { formatMoney } from "#shared/money";
import type { Runway } from "#shared/account";
import { queryRows, type Db } from "../../db/client";

export const RUNWAY_WINDOW_DAYS = 7n;
const DAY_MS = 86_400_000;

/**
 * How long the balance lasts at the average daily spend of the last 7 days (the 7 × 24 hours
 * before now): spend is what the ledger charged less what it refunded. Whole days, rounded down,
 * in integer arithmetic: balance × 7 ÷ spend. Null days when there was no net spend.
 */
export function runwayDays(balance: bigint, spend: bigint): bigint | null {
  if (spend <= 0n) return null;
  return (balance * RUNWAY_WINDOW_DAYS) / spend;
}

export async function runwayOf(db: Db, input: { userId: number; now: Date }): Promise<Runway> {
  const from = new Date(input.now.getTime() - Number(RUNWAY_WINDOW_DAYS) * DAY_MS);
  const [row] = await queryRows<{ balance: string; spend: string }>(
    db,
    sql`select u.balance::text as balance,
               coalesce((select -sum(amount) from ledger_entries
                         where user_id = u.id and kind in ('charge', 'refund')
                           and created_at > ${from.toISOString()}::timestamptz and created_at <= ${input.now.toISOString()}::timestamptz), 0)::text as spend
        from users u where u.id = ${input.userId}`,
  );
  const balance = BigInt(row?.balance ?? "0");
  const spend = BigInt(row?.spend ?? "0");
  const days = runwayDays(balance, spend);
  return {
    balance: formatMoney(balance),
    spendLast7Days: formatMoney(spend > 0n ? spend : 0n),
    averageDailySpend: formatMoney(spend > 0n ? spend / RUNWAY_WINDOW_DAYS : 0n),
    days: days === null ? null : Number(days),
  };
}
