import { sql } from "drizzle-orm";
import { bigint, bigserial, check, index, pgEnum, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { LEDGER_KINDS, PAYMENT_ORDER_STATUSES } from "#shared/money-rules";
import { users } from "./core";

const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();

export const ledgerKind = pgEnum("ledger_kind", LEDGER_KINDS);

/**
 * Append-only: every change of `users.balance` writes one row here in the same transaction
 * (src/server/modules/ledger). A trigger refuses UPDATE and DELETE.
 */
export const ledgerEntries = pgTable(
  "ledger_entries",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    // No foreign key: every writer moves the user's balance under its row lock in the same
    // transaction, and users are never deleted (drizzle/0014).
    userId: bigint("user_id", { mode: "number" }).notNull(),
    /** Signed micro-units: credits positive, debits negative. */
    amount: bigint("amount", { mode: "bigint" }).notNull(),
    balanceAfter: bigint("balance_after", { mode: "bigint" }).notNull(),
    kind: ledgerKind("kind").notNull(),
    /** How the money moved: redemption, operator, alipay, referral_bonus, gateway… */
    method: text("method").notNull(),
    /** What the user can quote: a masked code, an order number, a request id. */
    reference: text("reference").notNull(),
    idempotencyKey: text("idempotency_key").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("ledger_entries_user_key_uq").on(t.userId, t.idempotencyKey),
    index("ledger_entries_user_created_idx").on(t.userId, t.createdAt, t.id),
    check("ledger_entries_amount_nonzero", sql`${t.amount} <> 0`),
    check("ledger_entries_balance_after_nonnegative", sql`${t.balanceAfter} >= 0`),
  ],
);

export const redemptionCodes = pgTable(
  "redemption_codes",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    /** SHA-256 of the normalised code, hex; the code itself is printed once by the CLI and never stored. */
    codeHash: text("code_hash").notNull().unique(),
    /** Last four characters, so a redemption can be referenced without revealing the code. */
    suffix: text("suffix").notNull(),
    amount: bigint("amount", { mode: "bigint" }).notNull(),
    batch: text("batch").notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    redeemedBy: bigint("redeemed_by", { mode: "number" }).references(() => users.id),
    redeemedAt: timestamp("redeemed_at", { withTimezone: true }),
    /** Withdrawn by an operator (`admin codes void`) before anyone redeemed it: it can no longer be redeemed. */
    voidedAt: timestamp("voided_at", { withTimezone: true }),
  },
  (t) => [index("redemption_codes_batch_idx").on(t.batch), check("redemption_codes_amount_positive", sql`${t.amount} > 0`)],
);

export const paymentOrderStatus = pgEnum("payment_order_status", PAYMENT_ORDER_STATUSES);

export const paymentOrders = pgTable(
  "payment_orders",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    userId: bigint("user_id", { mode: "number" })
      .notNull()
      .references(() => users.id),
    provider: text("provider").notNull(),
    /** Our order number, sent to the provider as out_trade_no. */
    outTradeNo: text("out_trade_no").notNull().unique(),
    amount: bigint("amount", { mode: "bigint" }).notNull(),
    status: paymentOrderStatus("status").notNull().default("pending"),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    paidAt: timestamp("paid_at", { withTimezone: true }),
    /** The provider's own transaction number, from the notification. */
    providerTradeNo: text("provider_trade_no"),
  },
  (t) => [index("payment_orders_user_created_idx").on(t.userId, t.createdAt, t.id), check("payment_orders_amount_positive", sql`${t.amount} > 0`)],
);

/** Failed redemptions, per user and per IP: the limit against guessing codes counts them over the last hour. */
export const redemptionFailures = pgTable(
  "redemption_failures",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    userId: bigint("user_id", { mode: "number" })
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    ip: text("ip").notNull(),
    /** The error code the attempt got (unknown, used, expired). */
    reason: text("reason").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("redemption_failures_user_idx").on(t.userId, t.createdAt), index("redemption_failures_ip_idx").on(t.ip, t.createdAt)],
);
