import { z } from "zod";

/** One tool as the public catalog shows it (GET /api/v1/tools). */
export const publicToolSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  category: z.string(),
  /** Decimal string in the site currency: per call, or per `unit` when the tool reports units. */
  price: z.string(),
  unit: z.string().nullable().describe("What one priced unit is (e.g. 'character'); null means the price is per call"),
  requiresApproval: z.boolean(),
  rateLimitPerMinute: z.number().int().describe("Calls per minute allowed for one API key"),
  method: z.string().describe("HTTP method of the call"),
});

export const catalogResponseSchema = z.object({ tools: z.array(publicToolSchema) });

export type PublicTool = z.infer<typeof publicToolSchema>;
