import { describe, expect, it } from "vitest";
import { beijingDate, beijingDateTime, beijingDayStart, beijingIso } from "./beijing-time";

describe("Beijing time, written with its offset (decision 047)", () => {
  it("writes a moment as the Beijing wall clock, whatever zone it was given in", () => {
    expect(beijingDateTime("2026-11-27T02:54:44.123Z")).toBe("2026-11-27 10:54:44 +08:00");
    expect(beijingDateTime(new Date("2026-11-27T10:54:44+08:00"))).toBe("2026-11-27 10:54:44 +08:00");
    expect(beijingIso("2026-11-27T02:54:44.999Z")).toBe("2026-11-27T10:54:44+08:00");
    expect(beijingDate("2026-11-27T02:54:44Z")).toBe("2026-11-27");
  });

  it("moves to the next Beijing day at 16:00 UTC", () => {
    expect(beijingDateTime("2026-03-01T15:59:59Z")).toBe("2026-03-01 23:59:59 +08:00");
    expect(beijingDateTime("2026-03-01T16:00:00Z")).toBe("2026-03-02 00:00:00 +08:00");
    expect(beijingDate("2026-03-01T15:59:59.999Z")).toBe("2026-03-01");
    expect(beijingDate("2026-03-01T16:00:00Z")).toBe("2026-03-02");
  });

  it("crosses month ends, leap days and the new year on the Beijing clock", () => {
    expect(beijingDateTime("2026-12-31T16:00:00Z")).toBe("2027-01-01 00:00:00 +08:00");
    expect(beijingDateTime("2026-12-31T15:59:59Z")).toBe("2026-12-31 23:59:59 +08:00");
    expect(beijingIso("2027-12-31T17:30:00Z")).toBe("2028-01-01T01:30:00+08:00");
    expect(beijingDate("2028-02-28T16:00:00Z")).toBe("2028-02-29");
    expect(beijingDate("2026-02-28T16:00:00Z")).toBe("2026-03-01");
  });

  it("finds the instant a Beijing day starts, and the days after it", () => {
    expect(beijingDayStart("2027-01-01").toISOString()).toBe("2026-12-31T16:00:00.000Z");
    expect(beijingDayStart("2026-12-31", 1).toISOString()).toBe("2026-12-31T16:00:00.000Z");
    expect(beijingDayStart("2028-02-28", 1).toISOString()).toBe("2028-02-28T16:00:00.000Z");
    expect(beijingDate(beijingDayStart("2026-11-27"))).toBe("2026-11-27");
  });
});
