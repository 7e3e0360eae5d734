import { bigint, bigserial, index, integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

const at = (name: string) => timestamp(name, { withTimezone: true });

/**
 * The live code for each (target, purpose, client): only the latest one a browser asked for
 * counts, so its new code replaces the row, and a code answers only to the browser that asked
 * for it (decision 017). `target` is an HMAC of the phone number (phone numbers of people who
 * never signed up are not stored); `client` an HMAC of the browser's login cookie; `code_hmac`
 * an HMAC of the code, which is never stored in clear.
 */
export const authVerificationCodes = pgTable(
  "auth_verification_codes",
  {
    target: text("target").notNull(),
    purpose: text("purpose").notNull(),
    client: text("client").notNull(),
    codeHmac: text("code_hmac").notNull(),
    createdAt: at("created_at").notNull(),
    expiresAt: at("expires_at").notNull(),
    /** Wrong codes tried against this one; at the limit it is dead. */
    attempts: integer("attempts").notNull().default(0),
    consumedAt: at("consumed_at"),
  },
  (t) => [primaryKey({ columns: [t.target, t.purpose, t.client] })],
);

/**
 * Browsers (their login cookie's HMAC) that have logged in to a phone (its HMAC): their code
 * requests are counted apart from everyone else's, so strangers cannot use up the owner's codes.
 */
export const authKnownClients = pgTable(
  "auth_known_clients",
  {
    target: text("target").notNull(),
    client: text("client").notNull(),
    lastLoginAt: at("last_login_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.target, t.client] }), index("auth_known_clients_last_login_idx").on(t.lastLoginAt)],
);

/**
 * Events the named limits count over sliding windows (src/server/modules/auth/rate-limits.ts):
 * codes sent per phone (or per phone and known browser), code requests per IP (with the phone as
 * `subject`, for distinct phones), failed logins per IP.
 */
export const authRateEvents = pgTable(
  "auth_rate_events",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    name: text("name").notNull(),
    key: text("key").notNull(),
    subject: text("subject"),
    at: at("at").notNull(),
  },
  (t) => [index("auth_rate_events_key_idx").on(t.name, t.key, t.at), index("auth_rate_events_at_idx").on(t.name, t.at)],
);

/** Captcha results already accepted, kept until they could no longer be valid anyway. */
export const authCaptchaUses = pgTable(
  "auth_captcha_uses",
  {
    id: text("id").primaryKey(),
    usedAt: at("used_at").notNull(),
    expiresAt: at("expires_at").notNull(),
  },
  (t) => [index("auth_captcha_uses_expires_idx").on(t.expiresAt)],
);

/** The audit trail of sign-in: who (masked phone, user), from where (IP, user agent), which request, what and why. */
export const authEvents = pgTable(
  "auth_events",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    at: at("at").notNull(),
    type: text("type").notNull(),
    reason: text("reason"),
    phoneMasked: text("phone_masked"),
    userId: bigint("user_id", { mode: "number" }),
    ip: text("ip"),
    userAgent: text("user_agent"),
    requestId: text("request_id"),
  },
  (t) => [index("auth_events_at_idx").on(t.at), index("auth_events_user_idx").on(t.userId)],
);
