import { preparedRows, type Db, type PreparedStatement } from "../../db/client";
import { arrayLiteral } from "../../lib/array-literal";
import type { CallTrace } from "./trace";

/** Why rows never reached the call log: the queue was full, or their batch could not be written. */
export type DroppedReason = "queue_full" | "write_failed";

export interface CallLogWriterOptions {
  /** The most rows waiting to be written; past it a row is dropped and counted. */
  capacity: number;
  /** The most rows one insert carries; a full batch is written at once. */
  maxBatch: number;
  /** How long a row may wait for others to join its batch. */
  flushAfterMs: number;
  onDropped(reason: DroppedReason, rows: number): void;
  onWriteFailed(error: unknown, rows: number): void;
}

export const CALL_LOG_WRITER_DEFAULTS = { capacity: 10_000, maxBatch: 500, flushAfterMs: 250 } as const;

/**
 * A batch of rows and their sums added to each (Beijing day, user, tool), in one statement: one
 * round trip, one parameter per column whatever the batch's size, and no transaction of its own
 * for a charge to queue behind. A row already written (the same request id) is skipped. The sums
 * are upserted in key order, so two processes adding to the same days never wait in a circle.
 */
const WRITE_CALLS: PreparedStatement = {
  name: "write_call_log",
  text: `with given as (
           select * from unnest($1::text[], $2::timestamptz[], $3::bigint[], $4::bigint[], $5::text[], $6::text[], $7::int[], $8::int[],
                                $9::bigint[], $10::bigint[], $11::bigint[], $12::boolean[], $13::bigint[], $14::bigint[], $15::text[],
                                $16::int[], $17::int[], $18::int[], $19::int[], $20::int[], $21::text[], $22::text[], $23::text[])
         ), written as (
           insert into call_log (request_id, received_at, user_id, api_key_id, tool_id, outcome, http_status, upstream_status,
                                 held, amount, units, streamed, bytes_in, bytes_out, client_ip,
                                 total_us, upstream_us, key_checked_us, held_us, first_byte_us, error_code, error_message, upstream_error_excerpt)
           select * from given
           on conflict (request_id) do nothing
           returning received_at, user_id, tool_id, http_status, amount, units, total_us
         )
         insert into call_log_daily (day, user_id, tool_id, calls, failed, amount, units, total_us)
         select ((received_at at time zone 'UTC') + interval '8 hours')::date, user_id, tool_id,
                count(*), count(*) filter (where http_status >= 400), sum(amount), sum(units), sum(total_us)
           from written
          group by 1, 2, 3
          order by 1, 2, 3
         on conflict (day, user_id, tool_id) do update
            set calls = call_log_daily.calls + excluded.calls, failed = call_log_daily.failed + excluded.failed,
                amount = call_log_daily.amount + excluded.amount, units = call_log_daily.units + excluded.units,
                total_us = call_log_daily.total_us + excluded.total_us`,
};

/**
 * The call log's one writer: `push` only queues (no await, no I/O on the call's path); a batch is
 * written once it is full or its first row has waited `flushAfterMs`, one batch at a time. Rows
 * wait on purpose: on PGlite every statement shares the database's one thread with the charges,
 * so a write per call would delay the next call's charge. A bounded queue: when the database
 * falls behind, rows are dropped and counted, and the gateway keeps serving; the ledger, not this
 * log, is the record of money.
 */
export class CallLogWriter {
  private queue: CallTrace[] = [];
  private writing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Db,
    private readonly options: CallLogWriterOptions,
  ) {}

  /**
   * Queues a finished call's row; a row that does not fit is dropped and counted. A call whose key
   * was never found is not a user's, and is not kept.
   */
  push(trace: CallTrace): void {
    if (!trace.caller) return;
    if (this.queue.length >= this.options.capacity) {
      this.options.onDropped("queue_full", 1);
      return;
    }
    this.queue.push(trace);
    if (this.writing) return;
    if (this.queue.length >= this.options.maxBatch) this.startWriting();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.startWriting(), this.options.flushAfterMs);
      this.timer.unref();
    }
  }

  /** Writes everything queued so far, now; resolves once it is written (or dropped). */
  async drain(): Promise<void> {
    while (this.writing || this.queue.length > 0) {
      if (!this.writing) this.startWriting();
      await this.writing;
    }
  }

  private startWriting(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.writing || this.queue.length === 0) return;
    this.writing = this.writeAll().finally(() => {
      this.writing = null;
      // Rows that arrived meanwhile wait for their own batch.
      if (this.queue.length > 0 && !this.timer) {
        this.timer = setTimeout(() => this.startWriting(), this.queue.length >= this.options.maxBatch ? 0 : this.options.flushAfterMs);
        this.timer.unref();
      }
    });
  }

  private async writeAll(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.options.maxBatch);
      try {
        await preparedRows(this.db, WRITE_CALLS, columnsOf(batch));
      } catch (error) {
        this.options.onWriteFailed(error, batch.length);
        this.options.onDropped("write_failed", batch.length);
      }
      // A full batch goes at once; a partial one that came in meanwhile waits its turn.
      if (this.queue.length < this.options.maxBatch) return;
    }
  }
}

/** The batch as one array literal per column, in WRITE_CALLS' order. */
function columnsOf(batch: CallTrace[]): string[] {
  const column = (value: (trace: CallTrace) => string | number | null) => arrayLiteral(batch.map(value));
  return [
    column((t) => t.requestId),
    column((t) => t.receivedAt.toISOString()),
    column((t) => t.caller!.user.id),
    column((t) => t.caller!.key.id),
    column((t) => t.toolId),
    column((t) => t.outcome),
    column((t) => t.httpStatus),
    column((t) => t.upstreamStatus),
    column((t) => t.held.toString()),
    column((t) => t.amount.toString()),
    column((t) => t.units),
    column((t) => (t.streamed ? "t" : "f")),
    column((t) => t.bytesIn),
    column((t) => t.bytesOut),
    column((t) => t.clientIp),
    column((t) => t.totalUs),
    column((t) => t.upstreamUs),
    column((t) => t.keyCheckedUs),
    column((t) => t.heldUs),
    column((t) => t.firstByteUs),
    column((t) => t.errorCode),
    column((t) => t.errorMessage),
    column((t) => t.upstreamErrorExcerpt),
  ];
}
