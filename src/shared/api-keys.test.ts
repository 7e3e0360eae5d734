import { describe, expect, it } from "vitest";
import { spendLimitProblem } from "./api-keys";

describe("spendLimitProblem", () => {
  it("names each problem: not an amount, not above 0, or larger than the largest amount", () => {
    expect(spendLimitProblem("12.50")).toBeNull();
    expect(spendLimitProblem("9223372036854.775807")).toBeNull();
    expect(spendLimitProblem("12,50")).toBe("malformed");
    expect(spendLimitProblem("1.2345678")).toBe("malformed");
    expect(spendLimitProblem("0")).toBe("notPositive");
    expect(spendLimitProblem("-99999999999999999999")).toBe("notPositive");
    // Too large for the money type: its own problem, not one about decimals.
    expect(spendLimitProblem("9223372036854.775808")).toBe("tooLarge");
    expect(spendLimitProblem("99999999999999999999")).toBe("tooLarge");
  });
});
