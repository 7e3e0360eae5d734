import type { Db } from "../../db/client";
import { llmUsage } from "../../db/schema/index";
import type { LlmCharge } from "./handlers/types";

/** Writes what an LLM call was charged for beside its usage row. */
export async function recordLlmUsage(db: Db, usageId: number, charge: LlmCharge): Promise<void> {
  await db.insert(llmUsage).values({
    usageId,
    model: charge.model,
    inputTokens: charge.tokens.input,
    cachedInputTokens: charge.tokens.cachedInput,
    outputTokens: charge.tokens.output,
    inputAmount: charge.amounts.input,
    cachedInputAmount: charge.amounts.cachedInput,
    outputAmount: charge.amounts.output,
    origin: charge.origin,
  });
}
