import { sql } from "drizzle-orm";
import { bigint, bigserial, index, integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();

export const users = pgTable("users", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  phone: text("phone").notNull().unique(),
  /** Micro-units (1 unit = 1,000,000); changes only together with a ledger entry. */
  balance: bigint("balance", { mode: "bigint" }).notNull().default(sql`0`),
  referralCode: text("referral_code").notNull().unique(),
  referredBy: bigint("referred_by", { mode: "number" }),
  createdAt: createdAt(),
  /** Set by an operator (`admin users disable`): no sign-in, no gateway call; the ledger is untouched. */
  disabledAt: timestamp("disabled_at", { withTimezone: true }),
  disabledReason: text("disabled_reason"),
});

export const sessions = pgTable(
  "sessions",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    userId: bigint("user_id", { mode: "number" })
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** SHA-256 of the bearer token, hex; the token itself is never stored. */
    tokenHash: text("token_hash").notNull().unique(),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    ip: text("ip"),
    userAgent: text("user_agent"),
  },
  (t) => [index("sessions_user_idx").on(t.userId)],
);

export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    /** `user:<id>` for signed-in callers, `anon` otherwise. */
    scope: text("scope").notNull(),
    key: text("key").notNull(),
    route: text("route").notNull(),
    requestHash: text("request_hash").notNull(),
    /** Null while the first request is still being handled; set alone once a streamed answer's head went out. */
    statusCode: integer("status_code"),
    /** The first response, sealed with AES-256-GCM (it may hold a secret shown once). */
    sealedResponse: text("sealed_response"),
    /** The claiming request's id: only it settles the claim, and a gateway call's fate is learnt by it if its process died. */
    requestId: text("request_id"),
    /** The process holding the claim (`instance_leases.id`); null on claims made before drizzle/0018. */
    instanceId: text("instance_id"),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.key] }), index("idempotency_created_idx").on(t.createdAt)],
);

/**
 * One row per running server process (each of WEB_CONCURRENCY workers), alive while `expiresAt`
 * is ahead: the process renews it on a timer, so a process killed stops renewing and its
 * Idempotency-Key claims can be resolved at the next retry (lib/instance-lease.ts).
 */
export const instanceLeases = pgTable("instance_leases", {
  id: text("id").primaryKey(),
  startedAt: timestamp("started_at", { withTimezone: true }).notNull(),
  expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
});
