import { bigint, bigserial, boolean, date, index, integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/**
 * The call log: one row per gateway request that named a user's key, whatever became of it
 * (src/server/modules/calls). Written after the call, in batches, off the money path: the ledger
 * and usage_records stay the record of what was charged; this says what happened. Kept
 * `CALL_LOG_RETENTION_DAYS`; `call_log_daily` keeps its sums for good.
 */
export const callLog = pgTable(
  "call_log",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    requestId: text("request_id").notNull().unique(),
    receivedAt: timestamp("received_at", { withTimezone: true }).notNull(),
    // No foreign keys, as in usage_records: users and keys are never deleted (decision 012).
    userId: bigint("user_id", { mode: "number" }).notNull(),
    apiKeyId: bigint("api_key_id", { mode: "number" }).notNull(),
    /** The tool id the caller named (an unknown one too, cut to 64 characters). */
    toolId: text("tool_id").notNull(),
    /** A code of CALL_OUTCOMES (src/shared/calls.ts). */
    outcome: text("outcome").notNull(),
    httpStatus: integer("http_status").notNull(),
    /** The status the tool answered with; null when it never answered. */
    upstreamStatus: integer("upstream_status"),
    /** Micro-units held before the tool ran (0: none held); what it did not cost was refunded. */
    held: bigint("held", { mode: "bigint" }).notNull(),
    /** Micro-units the call cost in the end. */
    amount: bigint("amount", { mode: "bigint" }).notNull(),
    /** Units the call used, whatever paid for them (an LLM call's: micro-units, as its usage row). */
    units: bigint("units", { mode: "number" }).notNull(),
    /** Of them, those the caller's free quotas and packages paid (decision 054); the balance paid the rest. */
    prepaidUnits: bigint("prepaid_units", { mode: "number" }).notNull().default(0),
    streamed: boolean("streamed").notNull(),
    bytesIn: bigint("bytes_in", { mode: "number" }).notNull(),
    bytesOut: bigint("bytes_out", { mode: "number" }).notNull(),
    /** Whole; users are shown its /24 or /48. */
    clientIp: text("client_ip").notNull(),
    /** Microseconds from receiving the request to its end; the upstream's share; the timeline's marks. */
    totalUs: integer("total_us").notNull(),
    upstreamUs: integer("upstream_us"),
    keyCheckedUs: integer("key_checked_us"),
    heldUs: integer("held_us"),
    firstByteUs: integer("first_byte_us"),
    /** The error the caller got (GATEWAY_ERRORS code and message); null when the tool's answer was passed on. */
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    /** Operators only (`admin calls show`): the first 2 KB of a failed upstream's answer. Never sent to users. */
    upstreamErrorExcerpt: text("upstream_error_excerpt"),
    /** Made from the console's "Try it" (its key named by id, never by its secret) rather than by an outside caller. */
    fromConsole: boolean("from_console").notNull().default(false),
  },
  (t) => [index("call_log_user_received_idx").on(t.userId, t.receivedAt, t.id), index("call_log_received_idx").on(t.receivedAt, t.id)],
);

/** Per Beijing day, user and tool: the call log's sums, kept after its rows are deleted. */
export const callLogDaily = pgTable(
  "call_log_daily",
  {
    day: date("day").notNull(),
    userId: bigint("user_id", { mode: "number" }).notNull(),
    toolId: text("tool_id").notNull(),
    calls: bigint("calls", { mode: "number" }).notNull(),
    /** Calls answered with a status of 400 or more. */
    failed: bigint("failed", { mode: "number" }).notNull(),
    amount: bigint("amount", { mode: "bigint" }).notNull(),
    units: bigint("units", { mode: "number" }).notNull(),
    totalUs: bigint("total_us", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.day, t.userId, t.toolId] })],
);
