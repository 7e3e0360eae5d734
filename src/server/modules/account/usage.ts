import { sql } from "drizzle-orm";
import type { UsageDay } from "#shared/account";
import { formatMoney } from "#shared/money";
import { queryRows, type Db } from "../../db/client";

const DAY_MS = 86_400_000;

/** The `days` local dates ending today, oldest first, and the UTC instant the first one starts. */
export function usageRange(now: Date, days: number, tzOffsetMinutes: number): { from: Date; dates: string[] } {
  const offsetMs = tzOffsetMinutes * 60_000;
  const todayLocal = Math.floor((now.getTime() + offsetMs) / DAY_MS) * DAY_MS;
  const firstLocal = todayLocal - (days - 1) * DAY_MS;
  const dates = Array.from({ length: days }, (_, i) => new Date(firstLocal + i * DAY_MS).toISOString().slice(0, 10));
  return { from: new Date(firstLocal - offsetMs), dates };
}

/**
 * Successful calls and what they cost per local day, from the gateway's usage records (a call's
 * amount is net of any partial refund; failed, refunded calls and calls still running are left out).
 * Days without calls are present with zeros, so a chart has a continuous axis.
 */
export async function usageByDay(
  db: Db,
  input: { userId: number; now: Date; days: number; tzOffsetMinutes: number },
): Promise<{ days: UsageDay[]; totals: { calls: number; spend: string } }> {
  const { from, dates } = usageRange(input.now, input.days, input.tzOffsetMinutes);
  const rows = await queryRows<{ day: string; calls: string | number; spend: string | null }>(
    db,
    sql`
      select to_char((created_at at time zone 'UTC') + make_interval(mins => ${input.tzOffsetMinutes}::int), 'YYYY-MM-DD') as day,
             count(*) as calls, sum(amount)::text as spend
      from usage_records
      where user_id = ${input.userId} and status = 'succeeded'
        and created_at >= ${from.toISOString()}::timestamptz and created_at <= ${input.now.toISOString()}::timestamptz
      group by 1`,
  );
  const byDay = new Map(rows.map((r) => [r.day, r]));
  let totalCalls = 0;
  let totalSpend = 0n;
  const days = dates.map((date) => {
    const row = byDay.get(date);
    const calls = Number(row?.calls ?? 0);
    const spend = BigInt(row?.spend ?? 0);
    totalCalls += calls;
    totalSpend += spend;
    return { date, calls, spend: formatMoney(spend) };
  });
  return { days, totals: { calls: totalCalls, spend: formatMoney(totalSpend) } };
}
