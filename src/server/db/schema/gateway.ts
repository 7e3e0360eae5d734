import { sql } from "drizzle-orm";
import { bigint, bigserial, check, index, integer, pgEnum, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { users } from "./core";

export const USAGE_STATUSES = ["pending", "succeeded", "refunded"] as const;
export const usageStatus = pgEnum("usage_status", USAGE_STATUSES);

/**
 * One row per metered call, written with the call's charge. A built-in tool's call is charged
 * after it ran, so its row is `succeeded` from the start. An upstream's call is charged before
 * it runs (`pending`), then becomes `succeeded` with its latency, or `refunded` with the refund
 * entry when the upstream failed.
 */
export const usageRecords = pgTable(
  "usage_records",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    // No foreign keys: their per-row checks were a third of a metered call's database work. The
    // writers, charge_call and charge_calls (src/server/db/functions/), check both rows exist
    // under their locks, and users and API keys are never deleted (a trigger refuses it;
    // docs/decisions/012).
    userId: bigint("user_id", { mode: "number" }).notNull(),
    apiKeyId: bigint("api_key_id", { mode: "number" }).notNull(),
    toolId: text("tool_id").notNull(),
    units: bigint("units", { mode: "number" }).notNull(),
    /** Micro-units charged for the call (positive); the refund, if any, is a ledger entry of its own. */
    amount: bigint("amount", { mode: "bigint" }).notNull(),
    status: usageStatus("status").notNull().default("pending"),
    httpStatus: integer("http_status"),
    latencyMs: integer("latency_ms"),
    requestId: text("request_id").notNull().unique(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    /** When the call ended: its answer, its failure, or (never answered) the refund that settled it. A later refund leaves it. */
    completedAt: timestamp("completed_at", { withTimezone: true }),
    /**
     * When the call was refunded (status `refunded`): by the gateway as it failed, by the abandoned-call
     * sweep, or by an operator's `calls refund`, perhaps long after `completed_at`. Null otherwise.
     */
    refundedAt: timestamp("refunded_at", { withTimezone: true }),
    /**
     * The start of the key's spend period the call's amount was counted in (null: the key counts
     * its lifetime): a refund leaves that period, which may be later than the call's own stamp.
     */
    spendPeriodStart: timestamp("spend_period_start", { withTimezone: true }),
    /**
     * Of `units`, those paid from prepaid lots (`drawn_lot_id` or lot_moves names which); `amount` pays the rest. A
     * trigger gives back to the lots what a refund or a smaller final `units` no longer needs.
     */
    prepaidUnits: bigint("prepaid_units", { mode: "number" }).notNull().default(0),
    /**
     * The package or grant lot that paid all of the call's prepaid units, and how many it gave, when
     * one such lot did: the draw is recorded here instead of in a `lot_moves` row (what the call
     * gives back still is). Null and 0 when no lot paid, several did, or a free quota did.
     */
    drawnLotId: bigint("drawn_lot_id", { mode: "number" }),
    drawnLotUnits: bigint("drawn_lot_units", { mode: "number" }).notNull().default(0),
  },
  (t) => [
    index("usage_records_user_created_idx").on(t.userId, t.createdAt, t.id),
    // Only calls charged before an upstream ran are ever pending; the sweeper looks for old ones.
    index("usage_records_pending_idx").on(t.createdAt).where(sql`${t.status} = 'pending'`),
    check("usage_records_drawn_lot", sql`(${t.drawnLotId} is null) = (${t.drawnLotUnits} = 0)`),
  ],
);

/** Access to a tool that needs approval; written when an operator approves an application. */
export const toolGrants = pgTable(
  "tool_grants",
  {
    userId: bigint("user_id", { mode: "number" })
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    toolId: text("tool_id").notNull(),
    grantedAt: timestamp("granted_at", { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.toolId] })],
);
