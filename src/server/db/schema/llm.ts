import { bigint, integer, pgEnum, pgTable, text } from "drizzle-orm/pg-core";

export const TOKEN_ORIGINS = ["reported", "counted"] as const;
/** Who gave a call's token counts: the upstream's usage report, or Tollgate's tokenizer when the upstream reported none. */
export const tokenOrigin = pgEnum("token_origin", TOKEN_ORIGINS);

/**
 * What an OpenAI-compatible tool's call was charged for, one row per charged call beside its
 * usage row (same `usage_id`): its model, tokens read and written, and what each cost in
 * micro-units, which add up to the usage row's amount (docs/decisions/051).
 */
export const llmUsage = pgTable("llm_usage", {
  usageId: bigint("usage_id", { mode: "number" }).primaryKey(),
  model: text("model").notNull(),
  /** All input tokens, cached ones included. */
  inputTokens: integer("input_tokens").notNull(),
  /** Of the input tokens, those the upstream read from its cache. */
  cachedInputTokens: integer("cached_input_tokens").notNull(),
  outputTokens: integer("output_tokens").notNull(),
  inputAmount: bigint("input_amount", { mode: "bigint" }).notNull(),
  cachedInputAmount: bigint("cached_input_amount", { mode: "bigint" }).notNull(),
  outputAmount: bigint("output_amount", { mode: "bigint" }).notNull(),
  origin: tokenOrigin("origin").notNull(),
});
