import { describe, expect, it } from "vitest";
import { amountsTotal, apportion, tokenAmounts, tokensCost } from "./llm-prices";
import { parseMoney } from "./money";

describe("LLM prices per 1M tokens", () => {
  it("charges a direction its tokens at the price, rounded up once to a whole micro-unit", () => {
    // ¥0.15 per 1M tokens is 0.15 micro-units a token: 234 tokens cost 35.1, charged 36.
    expect(tokensCost(234, parseMoney("0.15"))).toBe(36n);
    expect(tokensCost(1_000_000, parseMoney("0.15"))).toBe(150_000n);
    expect(tokensCost(1, parseMoney("0.000001"))).toBe(1n);
    expect(tokensCost(0, parseMoney("8"))).toBe(0n);
    // Exact far beyond a float's 53 bits.
    expect(tokensCost(9_000_000_000, parseMoney("1234567.891011"))).toBe(11_111_111_019_099_000n);
  });

  it("prices cached input apart, out of the input tokens", () => {
    const prices = { input: parseMoney("0.15"), cachedInput: parseMoney("0.075"), output: parseMoney("0.60") };
    const amounts = tokenAmounts({ input: 1234, cachedInput: 1000, output: 567 }, prices);
    expect(amounts).toEqual({ input: 36n, cachedInput: 75n, output: 341n });
    expect(amountsTotal(amounts)).toBe(452n);
  });

  it("apportions a charge cut at its hold input first, and a minimum charge to output, always adding up", () => {
    const amounts = { input: 300n, cachedInput: 50n, output: 400n };
    expect(apportion(amounts, 750n)).toEqual(amounts);
    expect(apportion(amounts, 320n)).toEqual({ input: 300n, cachedInput: 20n, output: 0n });
    expect(apportion(amounts, 500n)).toEqual({ input: 300n, cachedInput: 50n, output: 150n });
    expect(apportion({ input: 0n, cachedInput: 0n, output: 0n }, 1n)).toEqual({ input: 0n, cachedInput: 0n, output: 1n });
  });
});
