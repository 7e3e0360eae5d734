import type { TokenizerName } from "#shared/llm-prices";

type Counter = (text: string) => number;
const loading = new Map<TokenizerName, Promise<Counter>>();

/** Text that looks like a special token (`<|endoftext|>`) is counted as the plain text it is. */
const AS_PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * Counts tokens with gpt-tokenizer's encoding, loaded on first use (~70 MB and ~0.15 s each): only
 * a call whose upstream reported no usage needs it (decision 051).
 */
export function tokenCounter(name: TokenizerName): Promise<Counter> {
  let counter = loading.get(name);
  if (!counter) {
    const encoding = name === "cl100k_base" ? import("gpt-tokenizer/encoding/cl100k_base") : import("gpt-tokenizer/encoding/o200k_base");
    counter = encoding.then(({ countTokens }) => (text: string) => (text ? countTokens(text, AS_PLAIN_TEXT) : 0));
    loading.set(name, counter);
  }
  return counter;
}
