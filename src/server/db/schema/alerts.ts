import { sql } from "drizzle-orm";
import { bigint, bigserial, index, integer, pgEnum, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { ALERT_CHANNELS, ALERT_DELIVERY_STATUSES } from "#shared/alerts";
import { users } from "./core";

export const alertChannel = pgEnum("alert_channel", ALERT_CHANNELS);
export const alertDeliveryStatus = pgEnum("alert_delivery_status", ALERT_DELIVERY_STATUSES);

/** A user's low-balance alert: off until a threshold is set. */
export const alertSettings = pgTable("alert_settings", {
  userId: bigint("user_id", { mode: "number" })
    .primaryKey()
    .references(() => users.id),
  /** Micro-units; null: alerts off. */
  threshold: bigint("threshold", { mode: "bigint" }),
  /** Charges from this time on are watched (set when the threshold changes), so old ones never alert. */
  watchedSince: timestamp("watched_since", { withTimezone: true }).notNull(),
  webhookUrl: text("webhook_url"),
  /** The `whsec_` signing secret, sealed (the server signs with it, so it cannot be a hash). */
  webhookSecretSealed: text("webhook_secret_sealed"),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
});

/**
 * The alerts outbox: one row per message to send (an SMS or a webhook POST), written after the
 * charge committed and delivered by the alerts job, outside any charge. A charge that crossed the
 * threshold is found by its ledger entry, once per channel (the unique index).
 */
export const alertDeliveries = pgTable(
  "alert_deliveries",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    userId: bigint("user_id", { mode: "number" })
      .notNull()
      .references(() => users.id),
    /** The Standard Webhooks message id; the same for every attempt and for both channels of one event. */
    eventId: text("event_id").notNull(),
    eventType: text("event_type").notNull(),
    channel: alertChannel("channel").notNull(),
    ledgerEntryId: bigint("ledger_entry_id", { mode: "number" }),
    /** The event as JSON: the webhook's body, and the SMS's figures. */
    payload: text("payload").notNull(),
    status: alertDeliveryStatus("status").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull(),
    lastError: text("last_error"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    deliveredAt: timestamp("delivered_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("alert_deliveries_entry_channel_idx").on(t.ledgerEntryId, t.channel),
    index("alert_deliveries_due_idx").on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index("alert_deliveries_user_idx").on(t.userId, t.createdAt),
    // drizzle/0017: one test event on its way per user.
    // One reminder per lot, threshold and channel: event ids `evt_lot_<lot>_<days>d` (lot-expiry.ts).
    uniqueIndex("alert_deliveries_lot_reminder_idx").on(t.eventId, t.channel).where(sql`${t.eventType} = 'lot.expiring'`),
    uniqueIndex("alert_deliveries_one_pending_test_idx").on(t.userId).where(sql`${t.eventType} = 'test' and ${t.status} = 'pending'`),
  ],
);

/** Every webhook attempt, as the user sees it in the console. */
export const alertAttempts = pgTable(
  "alert_attempts",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    deliveryId: bigint("delivery_id", { mode: "number" })
      .notNull()
      .references(() => alertDeliveries.id),
    attemptedAt: timestamp("attempted_at", { withTimezone: true }).notNull(),
    httpStatus: integer("http_status"),
    error: text("error"),
  },
  (t) => [index("alert_attempts_delivery_idx").on(t.deliveryId)],
);

/** Where the alerts job's scan of the ledger got to (one row). */
export const alertScan = pgTable("alert_scan", {
  id: integer("id").primaryKey(),
  scannedTo: timestamp("scanned_to", { withTimezone: true }).notNull(),
  /** Ledger entries up to this id were all stamped before any window a scan can still read: scans start after it. */
  passedId: bigint("passed_id", { mode: "number" }).notNull().default(0),
  /** The highest ledger id a scan saw at mark_at; it becomes passed_id once mark_at is that far behind. */
  markId: bigint("mark_id", { mode: "number" }).notNull().default(0),
  markAt: timestamp("mark_at", { withTimezone: true }).notNull().default(sql`'-infinity'`),
});
