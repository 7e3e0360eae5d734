import { bigint, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Units of a tool with tiers that a user paid for from the balance in one Beijing month: where
 * the month's next call starts in the tool's bands (docs/decisions/058). A call's success adds its
 * units in the statement that prices it; a refund later gives back money, not the place in the bands.
 */
export const tierCounts = pgTable(
  "tier_counts",
  {
    userId: bigint("user_id", { mode: "number" }).notNull(),
    toolId: text("tool_id").notNull(),
    monthStart: timestamp("month_start", { withTimezone: true }).notNull(),
    units: bigint("units", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.toolId, t.monthStart] })],
);
