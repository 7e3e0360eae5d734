/**
 * The events the app counts for its metrics (issue 41), each a Prometheus counter family whose
 * labels take only the values listed here: any other value is counted as "other", so nothing a
 * caller sends can add a series. Money is counted in micro-units (exact as a float up to 2^53).
 */
export const COUNTERS = {
  topUps: {
    name: "tollgate_topups_total",
    help: "Top-ups credited to a balance, by channel",
    labels: { channel: ["alipay", "wechat", "redemption"] },
  },
  topUpMicros: {
    name: "tollgate_topup_micros_total",
    help: "Money credited by top-ups, in micro-units, by channel",
    labels: { channel: ["alipay", "wechat", "redemption"] },
  },
  referralBonuses: {
    name: "tollgate_referral_bonuses_total",
    help: "Referral bonuses paid to referrers on a referred user's first top-up, by that top-up's channel",
    labels: { channel: ["alipay", "wechat", "redemption"] },
  },
  referralBonusMicros: {
    name: "tollgate_referral_bonus_micros_total",
    help: "Money paid as referral bonuses, in micro-units, by the channel of the top-up that earned it",
    labels: { channel: ["alipay", "wechat", "redemption"] },
  },
  refunds: {
    name: "tollgate_refunds_total",
    help: "Calls' money given back to balances by the server, by reason: failed (all of a failed call's hold), unused (a call used fewer units than it held), abandoned (the sweep, for a call whose server stopped); an operator's refunds (tollgate admin) are in the ledger only",
    labels: { reason: ["failed", "unused", "abandoned"] },
  },
  refundMicros: {
    name: "tollgate_refund_micros_total",
    help: "Money given back to balances for calls, in micro-units, by reason (as tollgate_refunds_total)",
    labels: { reason: ["failed", "unused", "abandoned"] },
  },
  paymentNotifications: {
    name: "tollgate_payment_notifications_total",
    help: "Payment providers' notifications, by what became of them: credited, duplicate (already credited), not_paid, forged (bad signature), mismatched (amount or order), malformed, query_failed",
    labels: { provider: ["alipay", "wechat"], result: ["credited", "duplicate", "not_paid", "forged", "mismatched", "malformed", "query_failed"] },
  },
  verificationCodes: {
    name: "tollgate_verification_codes_total",
    help: "Login code requests, by result: sent, or why not",
    labels: { result: ["sent", "captcha_failed", "cooldown", "phone_hourly", "phone_daily", "sms_budget", "ip_limited", "sms_send_failed", "captcha_unavailable"] },
  },
  logins: {
    name: "tollgate_logins_total",
    help: "Logins with a phone code, by result",
    labels: { result: ["succeeded", "invalid_code", "login_limited", "account_disabled"] },
  },
  alertDeliveries: {
    name: "tollgate_alert_deliveries_total",
    help: "Low-balance alert delivery attempts, by channel and result (retry: failed, tried again later; skipped: not sendable)",
    labels: { channel: ["sms", "webhook"], result: ["delivered", "retry", "failed", "skipped"] },
  },
} as const satisfies Record<string, { name: string; help: string; labels: Record<string, readonly string[]> }>;

export type CounterName = keyof typeof COUNTERS;
export type CounterLabels<N extends CounterName> = { [L in keyof (typeof COUNTERS)[N]["labels"]]: string };

/** Where counted events go (the app's metrics sink). */
export interface Counting {
  /** One event of a counted family; `by` for money counted in micro-units. */
  count<N extends CounterName>(family: N, labels: CounterLabels<N>, by?: number | bigint): void;
}

/** A label value as counted: one of the family's values, or "other". */
export function countedValue(allowed: readonly string[], value: string): string {
  return allowed.includes(value) ? value : "other";
}

/**
 * What went wrong at a tool's upstream (tollgate_gateway_upstream_errors_total): it could not be
 * reached (connect), it was too slow (timeout), it broke the connection (reset), it answered 5xx
 * (status), or else (other).
 */
export const UPSTREAM_FAULTS = ["connect", "timeout", "reset", "status", "other"] as const;
export type UpstreamFault = (typeof UPSTREAM_FAULTS)[number];
