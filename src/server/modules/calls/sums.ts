import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../../db/client";

/** The Beijing day (UTC+8, no daylight saving) a call log row was received on. */
export const BEIJING_DAY = sql.raw("(received_at at time zone 'UTC' + interval '8 hours')::date");

export interface DaySums {
  day: string;
  toolId: string;
  calls: number;
  failed: number;
  amount: bigint;
  units: number;
  totalUs: number;
}

/**
 * A user's calls summed per Beijing day and tool, however old: the sums of rows the retention
 * sweep has deleted (call_log_daily) and of the rows still kept, each call counted once.
 */
export async function daySums(db: Db, userId: number): Promise<DaySums[]> {
  const rows = await queryRows<{ day: string; tool_id: string; calls: string; failed: string; amount: string; units: string; total_us: string }>(
    db,
    sql`select day::text as day, tool_id, sum(calls)::text as calls, sum(failed)::text as failed, sum(amount)::text as amount,
               sum(units)::text as units, sum(total_us)::text as total_us
        from (
          select day, tool_id, calls, failed, amount, units, total_us from call_log_daily where user_id = ${userId}
          union all
          select ${BEIJING_DAY}, tool_id, 1, (http_status >= 400)::int, amount, units, total_us from call_log where user_id = ${userId}
        ) both_kinds
        group by day, tool_id order by day, tool_id`,
  );
  return rows.map((r) => ({
    day: r.day,
    toolId: r.tool_id,
    calls: Number(r.calls),
    failed: Number(r.failed),
    amount: BigInt(r.amount),
    units: Number(r.units),
    totalUs: Number(r.total_us),
  }));
}
