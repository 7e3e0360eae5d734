import { describe, expect, it } from "vitest";
import { WindowLimiter } from "./window-limiter";

describe("WindowLimiter", () => {
  it("allows the limit per window and says when the next window opens", () => {
    const limiter = new WindowLimiter(60_000);
    const t0 = 1_800_000_000_000;
    expect([1, 2, 3].map(() => limiter.hit("k", 3, t0))).toEqual([0, 0, 0]);
    expect(limiter.hit("k", 3, t0 + 10_000)).toBe(50_000);
    expect(limiter.hit("other", 3, t0 + 10_000)).toBe(0);
    expect(limiter.hit("k", 3, t0 + 60_000)).toBe(0);
  });
});
