import { formatMoney, parseMoney } from "#shared/money";
import type { LotView } from "#shared/plans";
import { spendPeriodEnd, spendPeriodStart } from "#shared/spend-period";
import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../../db/client";
import type { Tool } from "../catalog/index";
import { lotOf, type Lot, type LotRow, type PackageTerms } from "../ledger/index";

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

/** A lot as listed; `id` null for this period's free quota before its first call. */
type LotListRow = Omit<LotRow, "id"> & { id: LotRow["id"] | null };

const LISTED_LOTS = 200;

/**
 * A user's lots, usable ones first (this period's free quotas, then soonest expiring first and
 * oldest first: the order calls draw them in), then the rest, latest expiry first; ordered and cut
 * in SQL, so a user with many spent lots still sees the usable ones. A tool's free quota for the
 * current period is listed before its first call has made its lot, whole.
 */
export async function lotsOf(db: Db, catalog: ReadonlyMap<string, Tool>, userId: number, now: Date): Promise<LotView[]> {
  const at = sql`${now.toISOString()}::timestamptz`;
  const quotas = [...catalog.values()].flatMap((tool) =>
    tool.freeQuota
      ? [sql`(${tool.id}, ${tool.freeQuota.units}::bigint, ${spendPeriodStart(tool.freeQuota.period, now)!.toISOString()}::timestamptz, ${spendPeriodEnd(tool.freeQuota.period, now)!.toISOString()}::timestamptz)`]
      : [],
  );
  const unmadeFree =
    quotas.length === 0
      ? sql``
      : sql`union all
            select null, q.tool_id, 'free', null, 'free', q.units, q.units, '0', q.effective_at, q.expires_at, q.effective_at, null
            from (values ${sql.join(quotas, sql`, `)}) as q(tool_id, units, effective_at, expires_at)
            where not exists (select 1 from unit_lots l where l.user_id = ${userId} and l.tool_id = q.tool_id and l.source = 'free' and l.effective_at = q.effective_at)`;
  const rows = await queryRows<LotListRow>(
    db,
    sql`with lots as (
          select id, tool_id, source::text as source, package_id, label, units_granted, units_left, price_paid::text as price_paid, effective_at, expires_at, created_at, refunded_at
          from unit_lots where user_id = ${userId}
          ${unmadeFree}),
        listed as (
          select *, units_left > 0 and refunded_at is null and effective_at <= ${at} and expires_at > ${at} as usable from lots)
        select id, tool_id, source, package_id, label, units_granted, units_left, price_paid, effective_at, expires_at, created_at, refunded_at from listed
        order by usable desc, (usable and source = 'free') desc,
                 case when usable then expires_at end, case when usable then coalesce(id, 0) end,
                 expires_at desc, id desc, tool_id
        limit ${LISTED_LOTS}`,
  );
  return rows.map((row) => ({ ...lotView(lotOf({ ...row, id: row.id ?? 0 }), now), id: row.id === null ? null : Number(row.id) }));
}

export { lotView };
