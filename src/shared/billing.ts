import { z } from "zod";
import { userText } from "./text";

export const BILLING_PAGE_MAX = 100;

/** GET /api/v1/console/billing and billing.csv: one row per charged call. */
export const billingQuerySchema = z.object({
  from: z.iso.datetime({ offset: true }).optional().describe("Start of the range, inclusive"),
  to: z.iso.datetime({ offset: true }).optional().describe("End of the range, exclusive"),
  toolId: userText().max(64).optional(),
  keyId: z.coerce.number().int().positive().optional(),
  cursor: userText().max(200).optional().describe("nextCursor of the previous page"),
  limit: z.coerce.number().int().min(1).max(BILLING_PAGE_MAX).default(20),
});
export type BillingQuery = z.input<typeof billingQuerySchema>;

export const billingRowSchema = z.object({
  id: z.number().int(),
  time: z.string(),
  toolId: z.string(),
  keyId: z.number().int(),
  keyName: z.string(),
  units: z.number().int(),
  amount: z.string().describe("What the call cost, a decimal string"),
  requestId: z.string(),
});
export type BillingRow = z.infer<typeof billingRowSchema>;

export const billingPageSchema = z.object({
  items: z.array(billingRowSchema),
  nextCursor: z.string().nullable(),
  total: z.object({ calls: z.number().int(), amount: z.string() }).describe("For the whole filter, across all pages"),
});
export type BillingPage = z.infer<typeof billingPageSchema>;

export const BILLING_CSV_HEADER = ["time", "tool", "key", "units", "amount", "request_id"] as const;
