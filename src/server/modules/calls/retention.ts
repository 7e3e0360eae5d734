import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../../db/client";

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
 * bounded batches; the daily sums (call_log_daily) stay. Returns how many rows went.
 */
export async function sweepOldCalls(db: Db, now: Date, sweep: RetentionSweep): Promise<number> {
  const cutoff = new Date(now.getTime() - sweep.retentionDays * DAY_MS).toISOString();
  let deleted = 0;
  for (let batch = 0; batch < sweep.maxBatches; batch++) {
    const rows = await queryRows<{ id: string }>(
      db,
      sql`delete from call_log where id in (
            select id from call_log where received_at < ${cutoff}::timestamptz order by received_at, id limit ${sweep.batchRows}
          ) returning id`,
    );
    deleted += rows.length;
    if (rows.length < sweep.batchRows) break;
  }
  return deleted;
}
