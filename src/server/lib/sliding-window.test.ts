import { describe, expect, it } from "vitest";
import { SlidingWindowLimiter } from "./sliding-window";

describe("SlidingWindowLimiter", () => {
  const t0 = 1_800_000_000_000;

  it("admits the limit in any window, never twice it across a minute's boundary", () => {
    const limiter = new SlidingWindowLimiter(60_000);
    // Three hits at the end of one clock minute, then the next minute begins.
    expect([1, 2, 3].map(() => limiter.hit("k", 3, t0 + 59_000))).toEqual([0, 0, 0]);
    expect(limiter.hit("k", 3, t0 + 61_000)).toBe(58_000);
    expect(limiter.hit("other", 3, t0 + 61_000)).toBe(0);
    expect(limiter.hit("k", 3, t0 + 118_999)).toBe(1);
    expect(limiter.hit("k", 3, t0 + 119_000)).toBe(0);
    expect(limiter.hit("k", 3, t0 + 119_000)).toBe(0);
    expect(limiter.hit("k", 3, t0 + 119_000)).toBe(0);
    expect(limiter.hit("k", 3, t0 + 119_000)).toBe(60_000);
  });

  it("frees each slot when its own hit leaves the window", () => {
    const limiter = new SlidingWindowLimiter(60_000);
    expect(limiter.hit("k", 2, t0)).toBe(0);
    expect(limiter.hit("k", 2, t0 + 30_000)).toBe(0);
    expect(limiter.hit("k", 2, t0 + 45_000)).toBe(15_000);
    expect(limiter.hit("k", 2, t0 + 60_000)).toBe(0);
    expect(limiter.hit("k", 2, t0 + 60_001)).toBe(29_999);
  });

  it("counts a lowered limit against the hits already in the window", () => {
    const limiter = new SlidingWindowLimiter(60_000);
    for (let i = 0; i < 5; i += 1) expect(limiter.hit("k", 5, t0 + i * 1000)).toBe(0);
    // Limit now 2: four of the five hits (0 to 3 s) must leave the window before one more is admitted.
    expect(limiter.hit("k", 2, t0 + 10_000)).toBe(53_000);
  });
});
