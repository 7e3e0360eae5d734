import { z } from "zod";
import { userText } from "./text";

export const BILLING_PAGE_MAX = 100;

/** GET /api/v1/console/billing and billing.csv: one row per charged call or package bought. */
export const billingQuerySchema = z.strictObject({
  from: z.iso.datetime({ offset: true }).optional().describe("Start of the range, inclusive"),
  to: z.iso.datetime({ offset: true }).optional().describe("End of the range, exclusive"),
  toolId: userText().max(64).optional(),
  keyId: z.coerce.number().int().positive().optional(),
  cursor: userText().max(200).optional().describe("nextCursor of the previous page"),
  limit: z.coerce.number().int().min(1).max(BILLING_PAGE_MAX).default(20),
});
export type BillingQuery = z.input<typeof billingQuerySchema>;

/** What an LLM call's charge paid for (decision 051); amounts are decimal strings, input and output adding up to the row's amount. */
export const llmChargeSchema = z.object({
  model: z.string(),
  inputTokens: z.number().int().describe("Input tokens, the cached ones included"),
  cachedInputTokens: z.number().int(),
  outputTokens: z.number().int(),
  inputAmount: z.string().describe("What the input tokens cost, the cached ones included"),
  cachedInputAmount: z.string().describe("Of the input amount, what the cached input tokens cost"),
  outputAmount: z.string(),
  origin: z.enum(["reported", "counted"]).describe("reported: the tool's usage report; counted: the platform counted the tokens, the tool reported none"),
});
export type LlmChargeRow = z.infer<typeof llmChargeSchema>;

/** One source that paid for part of a call: a free quota, a package or grant (a lot), or the balance (docs/decisions/054). */
export const paidPartSchema = z.object({
  source: z.enum(["free", "package", "grant", "balance"]),
  name: z.string().nullable().describe("The package's or grant's name as it was bought or granted; null for a free quota and the balance"),
  units: z.number().int().describe("Units of the call this source paid, net of what a settlement gave back"),
  expiresAt: z.string().nullable().describe("When the lot expires (ISO 8601); null for the balance"),
  packageId: z.string().nullable().describe("The catalog's package id of a package or grant; null otherwise"),
  free: z
    .object({
      used: z.number().int().describe("Units of the period's free quota used up to and including this call"),
      of: z.number().int().describe("The period's free quota"),
      period: z.enum(["day", "month"]),
      periodStart: z.string().describe("ISO 8601: the Beijing day or month the quota belongs to starts here"),
    })
    .nullable()
    .describe('For a free quota: how much of the period\'s quota was used with this call ("free 12/100 this month"); null otherwise'),
});
export type PaidPart = z.infer<typeof paidPartSchema>;

/** A package bought from the balance, listed in billing details beside the calls (decision 060). */
export const purchaseSchema = z.object({
  lotId: z.number().int(),
  packageId: z.string(),
  name: z.string().describe("The package's name when it was bought"),
  expiresAt: z.string().describe("When its units expire (ISO 8601)"),
  refundedAt: z.string().nullable().describe("When the site's operator refunded its unused units to the balance (a credit in charge details); null if not"),
});
export type PurchaseRow = z.infer<typeof purchaseSchema>;

export const billingRowSchema = z.object({
  kind: z.enum(["call", "purchase"]).describe("call: a charged call; purchase: a package bought from the balance"),
  id: z.number().int().describe("The call's id, or for a purchase its lot's id"),
  time: z.string(),
  toolId: z.string(),
  keyId: z.number().int().nullable().describe("null for a purchase"),
  keyName: z.string().nullable().describe("null for a purchase"),
  units: z.number().int().describe("The units the call used, or the units the package holds"),
  amount: z.string().describe("What the call or the package cost, a decimal string"),
  requestId: z.string().nullable().describe("null for a purchase"),
  llm: llmChargeSchema.nullable().describe("For a call to an LLM tool: its model, tokens and the amount of each"),
  paidBy: z.array(paidPartSchema).describe("What paid for the call, in the order it was drawn: free quota, packages and grants, then the balance (amount); for a purchase, the balance"),
  purchase: purchaseSchema.nullable().describe("For a purchase: the package; null for a call"),
});
export type BillingRow = z.infer<typeof billingRowSchema>;

export const billingPageSchema = z.object({
  items: z.array(billingRowSchema),
  nextCursor: z.string().nullable(),
  total: z
    .object({ calls: z.number().int(), purchases: z.number().int(), amount: z.string() })
    .describe("For the whole filter, across all pages: the charged calls, the packages bought, and what they cost together"),
});
export type BillingPage = z.infer<typeof billingPageSchema>;

export const BILLING_CSV_HEADER = [
  ...["time", "tool", "key", "units", "amount", "request_id"],
  ...["model", "input_tokens", "cached_input_tokens", "output_tokens", "input_amount", "cached_input_amount", "output_amount", "tokens_origin"],
  ...["paid_by", "free_units", "package_units", "grant_units", "balance_units"],
  "package_bought",
] as const;
