import { sql } from "drizzle-orm";
import { bigint, bigserial, check, index, pgEnum, pgTable, pgView, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

export const LOT_SOURCES = ["free", "package", "grant"] as const;
export type LotSource = (typeof LOT_SOURCES)[number];
export const lotSource = pgEnum("lot_source", LOT_SOURCES);

/**
 * Prepaid units of one tool for one user (docs/decisions/054): a period's free quota, a package
 * bought from the balance, or a package an operator granted. Calls draw from lots before the
 * balance (charge_call); every change of `units_left` is recorded in the same transaction, by a row
 * of `lot_moves` or on the usage row of the call it paid (`drawn_lot_id`), so `units_granted -
 * units_left` is always the sum of the lot's moves (the `lot_ledger` view).
 */
export const unitLots = pgTable(
  "unit_lots",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    userId: bigint("user_id", { mode: "number" }).notNull(),
    toolId: text("tool_id").notNull(),
    source: lotSource("source").notNull(),
    /** The catalog's package id (null for a free quota). */
    packageId: text("package_id"),
    /** The package's name when the lot was made, so a later catalog edit does not rename what a user bought. */
    label: text("label").notNull(),
    unitsGranted: bigint("units_granted", { mode: "number" }).notNull(),
    unitsLeft: bigint("units_left", { mode: "number" }).notNull(),
    /** Micro-units taken from the balance for it; 0 for a free quota or a grant. */
    pricePaid: bigint("price_paid", { mode: "bigint" }).notNull().default(sql`0`),
    /** Usable from this instant (a free quota: its period's start) until just before `expires_at`. */
    effectiveAt: timestamp("effective_at", { withTimezone: true }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    /** What made it: `purchase:<Idempotency-Key>`, `grant:<operator's key>`, or `free:<period start>`; unique per user. */
    origin: text("origin").notNull(),
    /** When an operator gave its unused units back as money (`admin packages refund`); once. */
    refundedAt: timestamp("refunded_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("unit_lots_user_origin_uq").on(t.userId, t.toolId, t.origin),
    // The draw's index: a user's lots of a tool that have not expired, whatever number of past
    // periods' free lots are behind them. No index names units_left, so a draw's update of it is a
    // heap-only (HOT) update: a call writes no index entry for its lot.
    index("unit_lots_user_tool_expiry_idx").on(t.userId, t.toolId, t.expiresAt),
    index("unit_lots_expiring_idx").on(t.expiresAt),
    check("unit_lots_units_left_in_range", sql`${t.unitsLeft} >= 0 and ${t.unitsLeft} <= ${t.unitsGranted}`),
    check("unit_lots_units_granted_positive", sql`${t.unitsGranted} > 0`),
  ],
);

export const LOT_MOVE_KINDS = ["draw", "return", "refund"] as const;
export const lotMoveKind = pgEnum("lot_move_kind", LOT_MOVE_KINDS);

/**
 * Append-only: units taken out of a lot (positive: a call's draw, an operator's refund of what was
 * left) or put back (negative: what a call did not use, or all of a failed call's draw). A call that
 * one package or grant paid all of its prepaid units records that draw on its usage row instead
 * (`drawn_lot_id`).
 */
export const lotMoves = pgTable(
  "lot_moves",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    lotId: bigint("lot_id", { mode: "number" }).notNull(),
    /** The call that drew or gave back (null for an operator's refund). */
    usageId: bigint("usage_id", { mode: "number" }),
    units: bigint("units", { mode: "number" }).notNull(),
    kind: lotMoveKind("kind").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("lot_moves_usage_idx").on(t.usageId).where(sql`${t.usageId} is not null`), index("lot_moves_lot_idx").on(t.lotId), check("lot_moves_units_nonzero", sql`${t.units} <> 0`)],
);

/**
 * Every lot's moves (decision 054) in one relation: the `lot_moves` rows, and the draws recorded on
 * usage rows (`drawn_lot_id`: one package or grant paid all of a call's prepaid units). `o` orders a
 * call's moves: its usage row's draw comes first. A free quota's draws are always `lot_moves` rows,
 * so what reads one free lot's draws reads those alone. Read by the return trigger, `admin ledger
 * verify`, `admin stats` and the billing details.
 */
export const lotLedger = pgView("lot_ledger", {
  lotId: bigint("lot_id", { mode: "number" }).notNull(),
  usageId: bigint("usage_id", { mode: "number" }),
  units: bigint("units", { mode: "number" }).notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  o: bigint("o", { mode: "number" }).notNull(),
}).as(
  sql`select lot_id, usage_id, units, created_at, id as o from lot_moves
  union all
  select drawn_lot_id, id, drawn_lot_units, created_at, 0 from usage_records where drawn_lot_id is not null`,
);
