import { describe, expect, it } from "vitest";
import { rangeFromDays } from "./date-range";

describe("rangeFromDays", () => {
  it("turns inclusive calendar days into [start of first day, start of the day after the last) on the reader's clock", () => {
    expect(rangeFromDays("2026-03-01", "2026-03-31")).toEqual({
      from: new Date(2026, 2, 1).toISOString(),
      to: new Date(2026, 3, 1).toISOString(),
    });
    expect(rangeFromDays("2026-03-05", "2026-03-05")).toEqual({
      from: new Date(2026, 2, 5).toISOString(),
      to: new Date(2026, 2, 6).toISOString(),
    });
  });

  it("leaves out an empty side and refuses a start after the end", () => {
    expect(rangeFromDays("", "")).toEqual({});
    expect(rangeFromDays("2026-03-05", "")).toEqual({ from: new Date(2026, 2, 5).toISOString() });
    expect(rangeFromDays("2026-03-06", "2026-03-05")).toBeNull();
  });
});
