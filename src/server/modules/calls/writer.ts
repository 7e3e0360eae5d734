import { sql } from "drizzle-orm";
import { beijingDate } from "#shared/beijing-time";
import type { Db } from "../../db/client";
import { callLog, callLogDaily } from "../../db/schema/index";
import type { CallTrace } from "./trace";

/** Why rows never reached the call log: the queue was full, or their batch could not be written. */
export type DroppedReason = "queue_full" | "write_failed";

export interface CallLogWriterOptions {
  /** The most rows waiting to be written; past it a row is dropped and counted. */
  capacity: number;
  /** The most rows one insert carries. */
  maxBatch: number;
  onDropped(reason: DroppedReason, rows: number): void;
  onWriteFailed(error: unknown, rows: number): void;
}

export const CALL_LOG_WRITER_DEFAULTS = { capacity: 10_000, maxBatch: 500 } as const;

type Daily = typeof callLogDaily.$inferInsert;

/**
 * The call log's one writer: `push` only queues (no await, no I/O on the call's path), and one
 * batch at a time is inserted from setImmediate, with the day's sums in the same transaction. A
 * bounded queue: when the database falls behind, rows are dropped and counted, and the gateway
 * keeps serving; the ledger, not this log, is the record of money.
 */
export class CallLogWriter {
  private queue: CallTrace[] = [];
  private writing: Promise<void> | null = null;
  private scheduled = false;

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
    if (!this.scheduled && !this.writing) {
      this.scheduled = true;
      setImmediate(() => this.startWriting());
    }
  }

  /** Resolves once every row queued so far is written (or dropped). */
  async drain(): Promise<void> {
    while (this.writing || this.queue.length > 0) {
      if (!this.writing) this.startWriting();
      await this.writing;
    }
  }

  private startWriting(): void {
    this.scheduled = false;
    if (this.writing || this.queue.length === 0) return;
    this.writing = this.writeAll().finally(() => {
      this.writing = null;
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
    }
  }
}

/** The rows, and their sums added to each (Beijing day, user, tool), in one transaction; a row already written is skipped. */
async function writeBatch(db: Db, batch: CallTrace[]): Promise<void> {
  await db.transaction(async (tx) => {
    const written = await tx
      .insert(callLog)
      .values(batch.map(rowOf))
      .onConflictDoNothing({ target: callLog.requestId })
      .returning({ receivedAt: callLog.receivedAt, userId: callLog.userId, toolId: callLog.toolId, httpStatus: callLog.httpStatus, amount: callLog.amount, units: callLog.units, totalUs: callLog.totalUs });
    const sums = new Map<string, Daily>();
    for (const row of written) {
      const day = beijingDate(row.receivedAt);
      const key = `${day} ${row.userId} ${row.toolId}`;
      const sum = sums.get(key) ?? { day, userId: row.userId, toolId: row.toolId, calls: 0, failed: 0, amount: 0n, units: 0, totalUs: 0 };
      sum.calls += 1;
      sum.failed += row.httpStatus >= 400 ? 1 : 0;
      sum.amount += row.amount;
      sum.units += row.units;
      sum.totalUs += row.totalUs;
      sums.set(key, sum);
    }
    if (sums.size === 0) return;
    // In one order, so two processes adding to the same days never wait on each other in a circle.
    const ordered = [...sums.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, sum]) => sum);
    await tx
      .insert(callLogDaily)
      .values(ordered)
      .onConflictDoUpdate({
        target: [callLogDaily.day, callLogDaily.userId, callLogDaily.toolId],
        set: {
          calls: sql`${callLogDaily.calls} + excluded.calls`,
          failed: sql`${callLogDaily.failed} + excluded.failed`,
          amount: sql`${callLogDaily.amount} + excluded.amount`,
          units: sql`${callLogDaily.units} + excluded.units`,
          totalUs: sql`${callLogDaily.totalUs} + excluded.total_us`,
        },
      });
  });
}

function rowOf(trace: CallTrace): typeof callLog.$inferInsert {
  const { key, user } = trace.caller!;
  return {
    requestId: trace.requestId,
    receivedAt: trace.receivedAt,
    userId: user.id,
    apiKeyId: key.id,
    toolId: trace.toolId,
    outcome: trace.outcome,
    httpStatus: trace.httpStatus,
    upstreamStatus: trace.upstreamStatus,
    held: trace.held,
    amount: trace.amount,
    units: trace.units,
    streamed: trace.streamed,
    bytesIn: trace.bytesIn,
    bytesOut: trace.bytesOut,
    clientIp: trace.clientIp,
    totalUs: trace.totalUs,
    upstreamUs: trace.upstreamUs,
    keyCheckedUs: trace.keyCheckedUs,
    heldUs: trace.heldUs,
    firstByteUs: trace.firstByteUs,
    errorCode: trace.errorCode,
    errorMessage: trace.errorMessage,
    upstreamErrorExcerpt: trace.upstreamErrorExcerpt,
  };
}
