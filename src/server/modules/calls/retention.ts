import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../../db/client";
import { BEIJING_DAY } from "./sums";

const DAY_MS = 86_400_000;

export interface RetentionSweep {
  retentionDays: number;
  /** Rows one delete takes at most: a short statement, so the gateway's writes never queue behind it. */
  batchRows: number;
  /** Deletes one run makes at most; what is left goes at the next run. */
  maxBatches: number;
}

export const RETENTION_SWEEP_DEFAULTS = { batchRows: 5000, maxBatches: 20 } as const;

/**
 * Deletes the call log's rows received more than `retentionDays` before `now`, oldest first, in
 * bounded batches, each adding the rows it deletes to their day's sums (call_log_daily) in the same
 * statement, so a call is counted in the sums exactly once: as a row, or in its day's sums once the
 * row has gone (./sums.ts). Returns how many rows went.
 */
export async function sweepOldCalls(db: Db, now: Date, sweep: RetentionSweep): Promise<number> {
  const cutoff = new Date(now.getTime() - sweep.retentionDays * DAY_MS).toISOString();
  let deleted = 0;
  for (let batch = 0; batch < sweep.maxBatches; batch++) {
    const [row] = await queryRows<{ deleted: string }>(
      db,
      sql`with deleted as (
            delete from call_log where id in (
              select id from call_log where received_at < ${cutoff}::timestamptz order by received_at, id limit ${sweep.batchRows}
            ) returning received_at, user_id, tool_id, http_status, amount, units, total_us
          ), summed as (
            insert into call_log_daily (day, user_id, tool_id, calls, failed, amount, units, total_us)
            select ${BEIJING_DAY}, user_id, tool_id, count(*), count(*) filter (where http_status >= 400), sum(amount), sum(units), sum(total_us)
            from deleted group by 1, 2, 3 order by 1, 2, 3
            on conflict (day, user_id, tool_id) do update set
              calls = call_log_daily.calls + excluded.calls,
              failed = call_log_daily.failed + excluded.failed,
              amount = call_log_daily.amount + excluded.amount,
              units = call_log_daily.units + excluded.units,
              total_us = call_log_daily.total_us + excluded.total_us
          )
          select count(*)::text as deleted from deleted`,
    );
    const rows = Number(row?.deleted ?? 0);
    deleted += rows;
    if (rows < sweep.batchRows) break;
  }
  return deleted;
}
