import { isMoney, parseMoney } from "./money";

/* Money rules both sides use; no zod here, so console pages can use them without loading it. */

/** Every way a balance changes (ledger_entries.kind). */
export const LEDGER_KINDS = ["topup", "redemption", "charge", "refund", "adjustment", "referral_bonus"] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

/** The credits /console/charge-details lists: money put into the balance, not gateway refunds. */
export const CREDIT_KINDS = ["topup", "redemption", "adjustment", "referral_bonus"] as const satisfies readonly LedgerKind[];

export const PAYMENT_ORDER_STATUSES = ["pending", "paid", "closed"] as const;

export const PAYMENT_PROVIDERS = ["alipay", "wechat"] as const;
export type PaymentProviderId = (typeof PAYMENT_PROVIDERS)[number];
export const PAYMENT_CHANNELS = ["page", "qr"] as const;
export type PaymentChannel = (typeof PAYMENT_CHANNELS)[number];

/** Top-up amounts through a payment provider: whole cents, within these bounds. */
export const PAYMENT_MIN_AMOUNT = "1.00";
export const PAYMENT_MAX_AMOUNT = "50000.00";

/** A code as printed: letters, digits, spaces and dashes; case does not matter. */
export const REDEMPTION_CODE_MAX_LENGTH = 64;

export const CREDIT_STATUSES = ["succeeded", "pending", "closed"] as const;
export type CreditStatus = (typeof CREDIT_STATUSES)[number];

export const CREDITS_CSV_HEADER = ["time", "method", "amount", "status", "reference"] as const;

/** What the top-up form says about an amount as typed: null when it is acceptable. */
export function paymentAmountProblem(input: string): "format" | "range" | null {
  if (!isMoney(input) || !/^\d+(\.\d{1,2})?$/.test(input.trim())) return "format";
  const micros = parseMoney(input);
  if (micros < parseMoney(PAYMENT_MIN_AMOUNT) || micros > parseMoney(PAYMENT_MAX_AMOUNT)) return "range";
  return null;
}
