import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dearestPrice, tieredCost, type Tiers } from "./tiers";

// 10,000 at ¥0.002, to 100,000 at ¥0.0015, then ¥0.001 (micro-units).
const bands = [
  { upTo: 10_000, price: 2000n },
  { upTo: 100_000, price: 1500n },
  { upTo: null, price: 1000n },
];
const graduated: Tiers = { mode: "graduated", bands };
const volume: Tiers = { mode: "volume", bands };

describe("tieredCost", () => {
  it("prices each unit of a graduated tool at its own band", () => {
    expect(tieredCost(graduated, 0, 10_000)).toBe(20_000_000n); // ¥20.00
    expect(tieredCost(graduated, 0, 20_000)).toBe(35_000_000n); // ¥20.00 + 10,000 × ¥0.0015
    expect(tieredCost(graduated, 9_999, 2)).toBe(3500n); // the 10,000th at ¥0.002, the 10,001st at ¥0.0015
    expect(tieredCost(graduated, 150_000, 3)).toBe(3000n);
    expect(tieredCost(graduated, 5, 0)).toBe(0n);
  });

  it("prices all of a volume call's units at the band the month reaches with them, leaving earlier calls as they were", () => {
    expect(tieredCost(volume, 0, 10_000)).toBe(20_000_000n);
    expect(tieredCost(volume, 9_999, 2)).toBe(3000n);
    expect(tieredCost(volume, 0, 100_001)).toBe(100_001_000n);
  });

  it("charges the month's graduated units the same however its calls divide them", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 40_000 }), { minLength: 1, maxLength: 12 }), (calls) => {
        let counted = 0;
        let charged = 0n;
        for (const units of calls) {
          charged += tieredCost(graduated, counted, units);
          counted += units;
        }
        expect(charged).toBe(tieredCost(graduated, 0, counted));
      }),
    );
  });

  it("never costs more than the dearest band's price, which is what a call holds", () => {
    const rising: Tiers = { mode: "graduated", bands: [{ upTo: 5, price: 10n }, { upTo: null, price: 30n }] };
    expect(dearestPrice(rising)).toBe(30n);
    fc.assert(
      fc.property(fc.constantFrom(graduated, volume, rising), fc.nat(200_000), fc.integer({ min: 1, max: 50_000 }), (tiers, counted, units) => {
        expect(tieredCost(tiers, counted, units) <= dearestPrice(tiers) * BigInt(units)).toBe(true);
      }),
    );
  });
});
