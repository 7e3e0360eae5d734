import { formatMoney, parseMoney } from "#shared/money";
import type { LotView } from "#shared/plans";
import { spendPeriodEnd, spendPeriodStart } from "#shared/spend-period";
import type { Db } from "../../db/client";
import type { Tool } from "../catalog/index";
import { userLots, type Lot, type PackageTerms } from "../ledger/index";

/** A catalog package as the money wing sells it; undefined when the tool sells none of that id. */
export function packageTerms(tool: Tool, packageId: string): PackageTerms | undefined {
  const pkg = tool.packages.find((p) => p.id === packageId);
  return pkg && { toolId: tool.id, packageId: pkg.id, name: pkg.name, units: pkg.units, price: parseMoney(pkg.price), validDays: pkg.validDays };
}

const usable = (lot: Pick<Lot, "unitsLeft" | "effectiveAt" | "expiresAt" | "refundedAt">, now: Date) =>
  lot.unitsLeft > 0 && lot.refundedAt === null && lot.effectiveAt <= now && lot.expiresAt > now;

const lotView = (lot: Lot, now: Date): LotView => ({
  id: lot.id,
  toolId: lot.toolId,
  source: lot.source,
  packageId: lot.packageId,
  name: lot.label,
  unitsGranted: lot.unitsGranted,
  unitsLeft: lot.unitsLeft,
  pricePaid: formatMoney(lot.pricePaid),
  effectiveAt: lot.effectiveAt.toISOString(),
  expiresAt: lot.expiresAt.toISOString(),
  refundedAt: lot.refundedAt?.toISOString() ?? null,
  usable: usable(lot, now),
});

/**
 * A user's lots, usable ones first (soonest expiring first, the order calls draw them in), then
 * the rest, latest expiry first. A tool's free quota for the current period is listed before its
 * first call has made its lot, whole.
 */
export async function lotsOf(db: Db, catalog: ReadonlyMap<string, Tool>, userId: number, now: Date): Promise<LotView[]> {
  const lots = (await userLots(db, userId)).map((lot) => lotView(lot, now));
  for (const tool of catalog.values()) {
    const quota = tool.freeQuota;
    if (!quota) continue;
    const from = spendPeriodStart(quota.period, now)!;
    if (lots.some((lot) => lot.toolId === tool.id && lot.source === "free" && lot.effectiveAt === from.toISOString())) continue;
    lots.push({
      id: null,
      toolId: tool.id,
      source: "free",
      packageId: null,
      name: "free",
      unitsGranted: quota.units,
      unitsLeft: quota.units,
      pricePaid: formatMoney(0n),
      effectiveAt: from.toISOString(),
      expiresAt: spendPeriodEnd(quota.period, now)!.toISOString(),
      refundedAt: null,
      usable: true,
    });
  }
  const drawOrder = (lot: LotView) => [lot.usable ? 0 : 1, lot.usable && lot.source === "free" ? 0 : 1] as const;
  return lots.sort((a, b) => {
    const [ua, fa] = drawOrder(a);
    const [ub, fb] = drawOrder(b);
    if (ua !== ub) return ua - ub;
    if (fa !== fb) return fa - fb;
    return a.usable ? a.expiresAt.localeCompare(b.expiresAt) || (a.id ?? 0) - (b.id ?? 0) : b.expiresAt.localeCompare(a.expiresAt);
  });
}

export { lotView };
