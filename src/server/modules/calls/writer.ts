import { arrayLiteral } from "../../db/array-literal";
import { isoTimestamp } from "../../db/iso-timestamp";
import { preparedRows, type Db, type PreparedStatement } from "../../db/client";
import type { CallTrace } from "./trace";

/** Why rows never reached the call log: the queue was full, or their batch could not be written. */
export type DroppedReason = "queue_full" | "write_failed";

export interface CallLogWriterOptions {
  /** The most rows waiting to be written; past it a row is dropped and counted. */
  capacity: number;
  /** The most rows one insert carries. */
  maxBatch: number;
  /** How long the first row of a batch waits for others before the batch is written. */
  flushAfterMs: number;
  onDropped(reason: DroppedReason, rows: number): void;
  onWriteFailed(error: unknown, rows: number): void;
}

export const CALL_LOG_WRITER_DEFAULTS = { capacity: 10_000, maxBatch: 500, flushAfterMs: 100 } as const;

/**
 * The call log's one writer: `push` only queues (no await, no I/O on the call's path). A batch is
 * written `flushAfterMs` after its first row, or at once when `maxBatch` rows wait, one batch at a
 * time: when calls come one by one, their rows still go to the database in batches, not a write
 * per call. A bounded queue: when the database falls behind, rows are dropped and counted, and the
 * gateway keeps serving; the ledger, not this log, is the record of money.
 */
export class CallLogWriter {
  private queue: CallTrace[] = [];
  private writing: Promise<void> | null = null;
  private flushTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Db,
    private readonly options: CallLogWriterOptions,
  ) {}

  /**
   * Queues a finished call's row; a row that does not fit is dropped and counted. A call whose key
   * was never found is not a user's, and is not kept; one already queued is not queued again.
   */
  push(trace: CallTrace): void {
    if (!trace.caller || trace.queued) return;
    if (this.queue.length >= this.options.capacity) {
      this.options.onDropped("queue_full", 1);
      return;
    }
    trace.queued = true;
    this.queue.push(trace);
    if (!this.writing) this.schedule();
  }

  /** Resolves once every row queued so far is written (or dropped). */
  async drain(): Promise<void> {
    while (this.writing || this.queue.length > 0) {
      if (!this.writing) this.startWriting();
      await this.writing;
    }
  }

  /** Asks for the next write: at once for a full batch, else once the oldest waiting row is `flushAfterMs` old. */
  private schedule(): void {
    if (this.queue.length >= this.options.maxBatch) {
      if (this.flushTimer) clearTimeout(this.flushTimer);
      this.flushTimer = null;
      setImmediate(() => this.startWriting());
    } else if (!this.flushTimer && this.queue.length > 0) {
      this.flushTimer = setTimeout(() => this.startWriting(), this.options.flushAfterMs);
      // Rows waiting do not keep a process alive: closing the app drains them.
      this.flushTimer.unref();
    }
  }

  private startWriting(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    if (this.writing || this.queue.length === 0) return;
    this.writing = this.writeAll().finally(() => {
      this.writing = null;
      this.schedule();
    });
  }

  private async writeAll(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.options.maxBatch);
      try {
        await writeBatch(this.db, batch);
      } catch (error) {
        this.options.onWriteFailed(error, batch.length);
        this.options.onDropped("write_failed", batch.length);
      }
      // What arrived meanwhile waits for its own batch unless a whole one is ready.
      if (this.queue.length < this.options.maxBatch) return;
    }
  }
}

/** The call log's columns as one write passes them: a PostgreSQL array per column, cast to its element type. */
const COLUMNS: [column: string, type: string, value: (trace: CallTrace) => string | number | null][] = [
  ["request_id", "text", (t) => t.requestId],
  ["received_at", "timestamptz", (t) => isoTimestamp(t.receivedAt)],
  ["user_id", "bigint", (t) => t.caller!.user.id],
  ["api_key_id", "bigint", (t) => t.caller!.key.id],
  ["tool_id", "text", (t) => t.toolId],
  ["outcome", "text", (t) => t.outcome],
  ["http_status", "integer", (t) => t.httpStatus],
  ["upstream_status", "integer", (t) => t.upstreamStatus],
  ["held", "bigint", (t) => t.held.toString()],
  ["amount", "bigint", (t) => t.amount.toString()],
  ["units", "bigint", (t) => t.units],
  ["prepaid_units", "bigint", (t) => t.prepaidUsed],
  ["streamed", "boolean", (t) => String(t.streamed)],
  ["bytes_in", "bigint", (t) => t.bytesIn],
  ["bytes_out", "bigint", (t) => t.bytesOut],
  ["client_ip", "text", (t) => t.clientIp],
  ["total_us", "integer", (t) => t.totalUs],
  ["upstream_us", "integer", (t) => t.upstreamUs],
  ["key_checked_us", "integer", (t) => t.keyCheckedUs],
  ["held_us", "integer", (t) => t.heldUs],
  ["first_byte_us", "integer", (t) => t.firstByteUs],
  ["error_code", "text", (t) => t.errorCode],
  ["error_message", "text", (t) => t.errorMessage],
  ["upstream_error_excerpt", "text", (t) => t.upstreamErrorExcerpt],
  ["from_console", "boolean", (t) => String(t.fromConsole)],
];

/**
 * One statement writes a batch: one round trip, prepared once, with a parameter per column whatever
 * the batch's size. The day's sums are not touched here: the retention sweep adds a row to them as it
 * deletes it (./sums.ts), so every write stays an insert. A plain one: request ids are the server's
 * own UUIDs and a trace is queued once (`push`), and ON CONFLICT's speculative insertion cost
 * PostgreSQL another index probe and WAL record a row (bench/gateway/README.md, session 33).
 */
const WRITE_BATCH: PreparedStatement = {
  name: "call_log_write_batch",
  text: `insert into call_log (${COLUMNS.map(([column]) => column).join(", ")})
    select * from unnest(${COLUMNS.map(([, type], i) => `$${i + 1}::${type}[]`).join(", ")})`,
};

async function writeBatch(db: Db, batch: CallTrace[]): Promise<void> {
  await preparedRows(
    db,
    WRITE_BATCH,
    COLUMNS.map(([, , value]) => arrayLiteral(batch.map(value))),
  );
}
