/**
 * LLM tools are priced per model, in money per 1M tokens read (input) and written (output): a
 * token of a cheap model costs a fraction of a micro-unit, while a price per 1M tokens is a whole
 * number of micro-units. Each direction of a call costs its tokens times its price, divided by
 * 1M and rounded up once; the call costs the sum, so the amounts shown add up to what was
 * charged (docs/decisions/051).
 */
export const TOKENS_PER_PRICE = 1_000_000n;

/** The tokenizers Tollgate counts with when an upstream reports no usage (gpt-tokenizer's encodings). */
export const TOKENIZERS = ["o200k_base", "cl100k_base"] as const;
export type TokenizerName = (typeof TOKENIZERS)[number];

/** A model's prices: micro-units per 1M tokens. */
export interface ModelPrices {
  input: bigint;
  output: bigint;
  /** Input tokens read from the upstream's cache. */
  cachedInput: bigint;
}

export interface TokenCounts {
  /** All input tokens, the cached ones included (as OpenAI reports `prompt_tokens`). */
  input: number;
  /** Of `input`, those read from the cache. */
  cachedInput: number;
  output: number;
}

export interface TokenAmounts {
  input: bigint;
  cachedInput: bigint;
  output: bigint;
}

/** Micro-units for `tokens` at `perMillion` micro-units per 1M tokens, rounded up. */
export function tokensCost(tokens: number, perMillion: bigint): bigint {
  return (BigInt(tokens) * perMillion + TOKENS_PER_PRICE - 1n) / TOKENS_PER_PRICE;
}

/** What each direction of a call costs: uncached input, cached input and output, each rounded up once. */
export function tokenAmounts(tokens: TokenCounts, prices: ModelPrices): TokenAmounts {
  const cached = Math.min(tokens.cachedInput, tokens.input);
  return {
    input: tokensCost(tokens.input - cached, prices.input),
    cachedInput: tokensCost(cached, prices.cachedInput),
    output: tokensCost(tokens.output, prices.output),
  };
}

export const amountsTotal = (amounts: TokenAmounts) => amounts.input + amounts.cachedInput + amounts.output;

/**
 * The amounts of a call that was charged `charged`: the same when the charge is their total. A
 * call is never charged more than its hold, so amounts over it are cut, input first; a call is
 * never charged less than one micro-unit, which a free answer's output then carries.
 */
export function apportion(amounts: TokenAmounts, charged: bigint): TokenAmounts {
  const total = amountsTotal(amounts);
  if (total === charged) return amounts;
  if (total < charged) return { ...amounts, output: amounts.output + (charged - total) };
  const input = amounts.input < charged ? amounts.input : charged;
  const cachedInput = amounts.cachedInput < charged - input ? amounts.cachedInput : charged - input;
  return { input, cachedInput, output: charged - input - cachedInput };
}
