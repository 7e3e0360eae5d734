/**
 * Volume tiers: a tool's price per unit by the units a user has paid for from the balance in the
 * current Beijing month (docs/decisions/058). The gateway bills with `tieredCost`, and the catalog
 * and docs compute their examples with it, so an example is what the bill says.
 */

/**
 * `graduated`: each unit costs its band's price (the first 10,000 at one price, the rest at the
 * next). `volume`: all of a call's units cost the price of the band the month's count reaches
 * with them; calls charged before are not priced again.
 */
export type TierMode = "graduated" | "volume";

/** Units up to `upTo` of the month (counted from 1) cost `price` micro-units each; `upTo: null` is the last band, without end. */
export interface TierBand {
  upTo: number | null;
  price: bigint;
}

export interface Tiers {
  mode: TierMode;
  bands: readonly TierBand[];
}

/** What `units` more cost in micro-units, when `counted` units of the month were paid for before them. */
export function tieredCost(tiers: Tiers, counted: number, units: number): bigint {
  if (units <= 0) return 0n;
  const end = counted + units;
  if (tiers.mode === "volume") return BigInt(units) * bandAt(tiers.bands, end).price;
  let cost = 0n;
  let below = 0;
  for (const band of tiers.bands) {
    const top = band.upTo ?? Infinity;
    const inBand = Math.min(end, top) - Math.max(counted, below);
    if (inBand > 0) cost += BigInt(inBand) * band.price;
    if (end <= top) break;
    below = top;
  }
  return cost;
}

/** The band holding the month's `unit`th unit. */
function bandAt(bands: readonly TierBand[], unit: number): TierBand {
  return bands.find((band) => band.upTo === null || unit <= band.upTo) ?? bands[bands.length - 1]!;
}

/** The dearest unit price of any band: what a call holds per unit before its place in the month is known. */
export function dearestPrice(tiers: Tiers): bigint {
  return tiers.bands.reduce((most, band) => (band.price > most ? band.price : most), 0n);
}

/** The month the catalog shows a cost for: twice the first band, so the example reaches the second. */
export function tierExampleUnits(tiers: Tiers): number {
  const first = tiers.bands[0]?.upTo;
  return first ? first * 2 : 1000;
}
