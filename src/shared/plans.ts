import { z } from "zod";

/** One source of prepaid units of a tool (a lot), as the console shows it. */
export const lotSchema = z.object({
  id: z.number().int().nullable().describe("null for this period's free quota before its first call"),
  toolId: z.string(),
  source: z.enum(["free", "package", "grant"]).describe("free: the tool's free quota of the period; package: bought from the balance; grant: given by the site's operator"),
  packageId: z.string().nullable(),
  name: z.string().describe("The package's name when it was bought or granted; 'free' for a free quota"),
  unitsGranted: z.number().int(),
  unitsLeft: z.number().int(),
  pricePaid: z.string().describe("Decimal string in the site currency; 0 for a free quota or a grant"),
  effectiveAt: z.string().describe("ISO 8601 time"),
  expiresAt: z.string().describe("ISO 8601: usable until just before this instant"),
  refundedAt: z.string().nullable(),
  usable: z.boolean().describe("It has units left, has started, has not expired and was not refunded"),
});
export type LotView = z.infer<typeof lotSchema>;

export const lotsResponseSchema = z.object({ lots: z.array(lotSchema) });

export const purchaseBodySchema = z.strictObject({
  toolId: z.string().min(1).max(48),
  packageId: z.string().min(1).max(48),
});

export const purchaseResponseSchema = z.object({
  lot: lotSchema,
  balance: z.string().describe("The balance after the purchase, a decimal string"),
});
export type PurchaseResponse = z.infer<typeof purchaseResponseSchema>;
