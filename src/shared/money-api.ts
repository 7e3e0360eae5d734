import { z } from "zod";
import { userText } from "./text";
import {
  CREDIT_STATUSES,
  PAYMENT_CHANNELS,
  PAYMENT_MAX_AMOUNT,
  PAYMENT_MIN_AMOUNT,
  PAYMENT_PROVIDERS,
  REDEMPTION_CODE_MAX_LENGTH,
  paymentAmountProblem,
} from "./money-rules";

export * from "./money-rules";

const moneyString = z.string().describe("Decimal amount, exact to the micro-unit, such as 50.00");
const isoTime = z.string().describe("ISO 8601 time");

export const redeemBodySchema = z.strictObject({
  code: userText()
    .trim()
    .min(1, "please enter a redemption code")
    .max(REDEMPTION_CODE_MAX_LENGTH, "this is not a redemption code")
    .describe("The redemption code, as printed (dashes and spaces are ignored)"),
});

export const redeemResponseSchema = z.object({
  amount: moneyString,
  balance: moneyString,
  reference: z.string(),
});
export type RedeemResponse = z.infer<typeof redeemResponseSchema>;

export const creditRowSchema = z.object({
  id: z.string().describe("Stable row id"),
  time: isoTime,
  method: z.string().describe("redemption, operator, package_refund, call_refund, alipay, wechat or referral_bonus"),
  amount: z.string().describe("Decimal amount, exact to the micro-unit; negative for an operator's adjustment that took money off the balance"),
  status: z.enum(CREDIT_STATUSES).describe("succeeded: credited; pending: a payment not yet confirmed; closed: a payment never made"),
  reference: z.string(),
});
export type CreditRow = z.infer<typeof creditRowSchema>;

export const CREDITS_PAGE_MAX = 100;

export const creditsQuerySchema = z.strictObject({
  from: z.iso.datetime({ offset: true }).optional().describe("Inclusive start of the time range (ISO 8601)"),
  to: z.iso.datetime({ offset: true }).optional().describe("Exclusive end of the time range (ISO 8601)"),
  cursor: userText().max(200).optional().describe("nextCursor of the previous page"),
  limit: z.coerce.number().int().min(1).max(CREDITS_PAGE_MAX).default(20),
});

export const creditsPageSchema = z.object({
  items: z.array(creditRowSchema),
  nextCursor: z.string().nullable(),
  total: moneyString.describe("Sum of the succeeded credits in the filter, across all pages"),
});
export type CreditsPage = z.infer<typeof creditsPageSchema>;

export const paymentMethodsSchema = z.object({
  methods: z.array(z.object({ id: z.enum(PAYMENT_PROVIDERS), channels: z.array(z.enum(PAYMENT_CHANNELS)) })),
  minAmount: moneyString,
  maxAmount: moneyString,
});
export type PaymentMethods = z.infer<typeof paymentMethodsSchema>;

export const createPaymentBodySchema = z.strictObject({
  method: z.enum(PAYMENT_PROVIDERS),
  channel: z.enum(PAYMENT_CHANNELS).default("page"),
  amount: userText()
    .refine((a) => paymentAmountProblem(a) === null, `amount must be between ${PAYMENT_MIN_AMOUNT} and ${PAYMENT_MAX_AMOUNT} with at most 2 decimals`),
});
export type CreatePaymentBody = z.input<typeof createPaymentBodySchema>;

export const createPaymentResponseSchema = z.object({
  orderId: z.string().describe("Our order number (out_trade_no)"),
  amount: moneyString,
  expiresAt: isoTime,
  payUrl: z.string().nullable().describe("Channel page: the provider's pay page to open"),
  qrCode: z.string().nullable().describe("Channel qr: the content of the QR code to show"),
});
export type CreatePaymentResponse = z.infer<typeof createPaymentResponseSchema>;

export const paymentStatusSchema = z.object({
  orderId: z.string(),
  status: z.enum(["paid", "pending", "closed"]).describe("paid: credited; pending: waiting for the payment; closed: never paid in time"),
});
export type PaymentStatus = z.infer<typeof paymentStatusSchema>;
