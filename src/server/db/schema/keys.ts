import { sql } from "drizzle-orm";
import { bigint, bigserial, index, pgEnum, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { SPEND_LIMIT_PERIODS } from "#shared/spend-period";
import { WHEN_PREPAID_RUNS_OUT } from "#shared/api-keys";
import { users } from "./core";

export const whenPrepaidRunsOut = pgEnum("when_prepaid_runs_out", WHEN_PREPAID_RUNS_OUT);

export const spendLimitPeriod = pgEnum("spend_limit_period", SPEND_LIMIT_PERIODS);

export const apiKeys = pgTable(
  "api_keys",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    userId: bigint("user_id", { mode: "number" })
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** SHA-256 of the full key, hex; the key itself is never stored. */
    keyHash: text("key_hash").notNull().unique(),
    prefix: text("prefix").notNull(),
    last4: text("last4").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    disabledAt: timestamp("disabled_at", { withTimezone: true }),
    /** Deleted keys stay, so past charges still name their key; they never authenticate again. */
    deletedAt: timestamp("deleted_at", { withTimezone: true }),
    /** Micro-units; null for no limit. */
    spendLimit: bigint("spend_limit", { mode: "bigint" }),
    /** Lifetime spend through the key. */
    spent: bigint("spent", { mode: "bigint" }).notNull().default(sql`0`),
    /** What the spend limit counts: the key's lifetime, or the current Beijing day or month. */
    spendLimitPeriod: spendLimitPeriod("spend_limit_period").notNull().default("lifetime"),
    /** Spend within the period starting at `periodStart` (charge_calls moves both, under its row lock). */
    periodSpent: bigint("period_spent", { mode: "bigint" }).notNull().default(sql`0`),
    periodStart: timestamp("period_start", { withTimezone: true }),
    /** Empty: every tool the user may use. */
    allowedTools: text("allowed_tools").array().notNull().default(sql`'{}'::text[]`),
    /** Addresses and CIDR ranges; empty: anywhere. */
    ipAllowlist: text("ip_allowlist").array().notNull().default(sql`'{}'::text[]`),
    /** When a call needs more than the free quota and packages left: go on from the balance, or refuse it (402 prepaid_exhausted). */
    whenPrepaidRunsOut: whenPrepaidRunsOut("when_prepaid_runs_out").notNull().default("balance"),
  },
  (t) => [index("api_keys_user_idx").on(t.userId, t.createdAt)],
);
