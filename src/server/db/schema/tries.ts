import { bigint, bigserial, boolean, index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * A user's last tries from the console's "Try it" (src/server/modules/tries): what was sent and
 * what came back, each body cut to `TRY_KEPT_BODY_BYTES`, so a try can be read and run again. The
 * call itself is in the call log and, when charged, the ledger; the newest 20 per user are kept.
 */
export const consoleTries = pgTable(
  "console_tries",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    userId: bigint("user_id", { mode: "number" }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    apiKeyId: bigint("api_key_id", { mode: "number" }).notNull(),
    toolId: text("tool_id").notNull(),
    method: text("method").notNull(),
    /** The sub-path and query after the tool's id ("" or "/…", "?…"). */
    path: text("path").notNull(),
    contentType: text("content_type"),
    requestBody: text("request_body").notNull(),
    requestTruncated: boolean("request_truncated").notNull(),
    requestId: text("request_id").notNull(),
    status: integer("status").notNull(),
    responseContentType: text("response_content_type"),
    /** The answer as text, cut; null for an answer that is not text (an image). */
    responseBody: text("response_body"),
    responseTruncated: boolean("response_truncated").notNull(),
    /** Micro-units the try cost, as the gateway charged it (a copy for the list; the ledger holds the charge). */
    amount: bigint("amount", { mode: "bigint" }).notNull(),
  },
  (t) => [index("console_tries_user_idx").on(t.userId, t.id)],
);
