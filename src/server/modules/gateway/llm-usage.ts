import type { LlmUsageItem } from "../ledger/index";
import type { LlmCharge } from "./handlers/types";

/** An LLM call's charge as the ledger records it beside the call's usage row. */
export const llmUsageItem = (charge: LlmCharge): LlmUsageItem => ({
  model: charge.model,
  inputTokens: charge.tokens.input,
  cachedInputTokens: charge.tokens.cachedInput,
  outputTokens: charge.tokens.output,
  inputAmount: charge.amounts.input,
  cachedInputAmount: charge.amounts.cachedInput,
  outputAmount: charge.amounts.output,
  origin: charge.origin,
});
