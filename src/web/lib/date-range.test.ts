import { describe, expect, it } from "vitest";
import { rangeFromDays } from "./date-range";

describe("rangeFromDays", () => {
  it("turns inclusive Beijing days into [start of first day, start of the day after the last), whatever the reader's zone", () => {
    expect(rangeFromDays("2026-03-01", "2026-03-31")).toEqual({ from: "2026-02-28T16:00:00.000Z", to: "2026-03-31T16:00:00.000Z" });
    expect(rangeFromDays("2026-12-31", "2026-12-31")).toEqual({ from: "2026-12-30T16:00:00.000Z", to: "2026-12-31T16:00:00.000Z" });
  });

  it("leaves out an empty side and refuses a start after the end", () => {
    expect(rangeFromDays("", "")).toEqual({});
    expect(rangeFromDays("2026-03-05", "")).toEqual({ from: "2026-03-04T16:00:00.000Z" });
    expect(rangeFromDays("2026-03-06", "2026-03-05")).toBeNull();
  });
});
