import { z } from "zod";

/** A tool's words in a language other than English; each one left out is shown in English. */
export const toolTextSchema = z.object({
  name: z.string().optional(),
  description: z.string().optional(),
  category: z.string().optional(),
  unit: z.string().optional(),
});
/** A model an LLM tool serves, with its prices per 1M tokens (decimal strings in the site currency). */
export const publicModelSchema = z.object({
  id: z.string(),
  input: z.string().describe("Per 1M input tokens"),
  cachedInput: z.string().describe("Per 1M input tokens the upstream read from its cache"),
  output: z.string().describe("Per 1M output tokens"),
});
export type PublicModel = z.infer<typeof publicModelSchema>;

/** A request to start a try from: the tool's documented example. */
export const toolExampleSchema = z.object({
  path: z.string().describe("What follows the tool's id in the URL"),
  contentType: z.string(),
  body: z.string(),
});
export type ToolExample = z.infer<typeof toolExampleSchema>;

/** A call package of a tool that a user buys from the balance (docs/decisions/054). */
export const publicPackageSchema = z.object({
  id: z.string(),
  name: z.string(),
  units: z.number().int().describe("Units of this tool the package holds (calls, for a tool priced per call)"),
  price: z.string().describe("Decimal string in the site currency, taken from the balance at purchase"),
  validDays: z.number().int().describe("Days it is usable from the moment it is bought, to the millisecond"),
  translations: z.object({ "zh-CN": z.object({ name: z.string() }).optional() }).describe("The package's name in other languages, where the operator gave it"),
});
export type PublicPackage = z.infer<typeof publicPackageSchema>;

export const publicTiersSchema = z.object({
  mode: z.enum(["graduated", "volume"]).describe("graduated: each unit at its band's price; volume: all of a call's units at the band the month reaches with them"),
  bands: z
    .array(
      z.object({
        upTo: z.number().int().nullable().describe("The month's last unit (counted from 1) at this band's price; null for the last band, without end"),
        price: z.string().describe("Decimal string in the site currency, per call or unit"),
      }),
    )
    .describe("Bands by the units a user paid for from the balance in the current Beijing month"),
  example: z
    .object({ units: z.number().int(), cost: z.string().describe("Decimal string: what these units cost in one month, billed as the gateway bills them") })
    .describe("What a month of this many units costs, computed by the function the gateway bills with"),
});
export type PublicTiers = z.infer<typeof publicTiersSchema>;

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
  translations: z.object({ "zh-CN": toolTextSchema.optional() }).describe("The tool's name, description, category and unit in other languages, where the operator gave them"),
  models: z
    .array(publicModelSchema)
    .nullable()
    .describe("For an OpenAI-compatible LLM tool, priced per model and token direction (price is then 0): its models; null for any other tool"),
  example: toolExampleSchema.nullable().describe("A request the tool's docs show, to try it with; null when the operator gave none"),

  freeQuota: z
    .object({ units: z.number().int(), period: z.enum(["day", "month"]) })
    .nullable()
    .describe("Units each user may use free in each natural Beijing day or month, drawn before packages and the balance; null for none"),
  packages: z.array(publicPackageSchema).describe("Call packages of this tool a user can buy from the balance; empty for none"),
  tiers: publicTiersSchema.nullable().describe("Volume tiers that price the tool instead of one price (price is then the first band's); null for a tool of one price"),
});

export const catalogResponseSchema = z.object({ tools: z.array(publicToolSchema) });

export type PublicTool = z.infer<typeof publicToolSchema>;
export type ToolTranslations = PublicTool["translations"];

