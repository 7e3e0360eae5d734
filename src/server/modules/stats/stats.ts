import { sql } from "drizzle-orm";
import { beijingDate, beijingDayStart } from "#shared/beijing-time";
import { queryRows, type Db } from "../../db/client";
import { LOT_REFUND_KEY_PREFIX, OPERATOR_REFUND_KEY_PREFIX } from "../ledger/index";

const DAY_MS = 86_400_000;

export interface StatsRange {
  /** First day, YYYY-MM-DD, Beijing time. */
  from: string;
  /** Last day, included. */
  to: string;
}

export interface OperatorStats {
  range: StatsRange;
  /** Money users put in, by ledger kind (topup, redemption) and method (alipay, wechat, redemption). */
  topUps: { kind: string; method: string; count: number; amount: bigint }[];
  /**
   * Per tool: calls charged less calls refunded, plus packages of the tool sold less their unused
   * units refunded (`revenue`: every charge and refund entry of the ledger, each once). A call's
   * refund counts for the tool of the call it refunds, a lot's for the lot's tool, on the day it was made.
   */
  revenueByTool: ({ tool: string } & Revenue)[];
  /** Every day of the range, oldest first. */
  revenueByDay: ({ day: string } & Revenue)[];
  /** Users and keys that made at least one call in the range. */
  activeUsers: number;
  activeKeys: number;
  signUps: number;
  referralBonuses: { count: number; amount: bigint };
  /** Operator adjustments (signed). */
  adjustments: { count: number; amount: bigint };
  /** Packages bought from balances, and bought packages' unused units an operator refunded. */
  packages: { sold: { count: number; amount: bigint }; refunded: { count: number; amount: bigint } };
  /** Prepaid units calls used in the range (drawn less given back), by where they came from: free quotas, packages bought, grants. */
  unitsDrawn: { source: string; units: number }[];
  /** The sum of every ledger entry in the range: top-ups + adjustments + referral bonuses − revenue (package sales and refunds included). */
  ledgerNet: bigint;
}

/** What users paid in a group of ledger entries: calls and packages, each less what was refunded of it. */
export interface Revenue {
  /**
   * What calls cost the balances: their charges less what the gateway gave back (a hold's unused
   * part, a failed call's hold); and what operators refunded of them (`admin calls refund`).
   */
  charges: bigint;
  refunds: bigint;
  /** Packages bought from balances, and bought packages' unused units an operator refunded (`admin packages refund`). */
  packagesSold: bigint;
  packagesRefunded: bigint;
  /** charges − refunds + packagesSold − packagesRefunded. */
  revenue: bigint;
}

const bigintOf = (v: string | null | undefined) => BigInt(v ?? "0");

interface RevenueRow {
  charges: string | null;
  refunds: string | null;
  packages_sold: string | null;
  packages_refunded: string | null;
}

function revenueOf(row: RevenueRow | undefined): Revenue {
  const [charges, refunds, packagesSold, packagesRefunded] = [row?.charges, row?.refunds, row?.packages_sold, row?.packages_refunded].map(bigintOf) as [bigint, bigint, bigint, bigint];
  return { charges, refunds, packagesSold, packagesRefunded, revenue: charges - refunds + packagesSold - packagesRefunded };
}

/**
 * The operator's figures for a range of Beijing days, each an exact sum of ledger entries (or a
 * count of rows), read on one repeatable-read snapshot so that they agree with one another.
 */
export async function operatorStats(db: Db, range: StatsRange): Promise<OperatorStats> {
  const from = beijingDayStart(range.from).toISOString();
  const until = new Date(beijingDayStart(range.to).getTime() + DAY_MS).toISOString();
  const inRange = (column: string) => sql`${sql.raw(column)} >= ${from}::timestamptz and ${sql.raw(column)} < ${until}::timestamptz`;
  const beijingDayOf = (column: string) => sql`to_char((${sql.raw(column)} at time zone 'UTC') + interval '8 hours', 'YYYY-MM-DD')`;
  // Every charge and refund in the range, as what it is (a call's charge, what the gateway gave back of
  // it, an operator's refund of a call, a package's sale or refund) and with the tool it
  // belongs to: a call refund's through the charge it refunds, a package's through its lot (bought:
  // `package:<key>` made the lot `purchase:<key>`; refunded: `lot-refund:<lot id>`).
  const lotRefundPrefix = sql`${LOT_REFUND_KEY_PREFIX}::text`;
  const operatorRefundPrefix = sql`${OPERATOR_REFUND_KEY_PREFIX}::text`;
  const moves = sql`
    select e.amount, e.created_at,
           case when e.kind = 'charge' and e.method = 'package' then 'package_sale'
                when e.kind = 'refund' and e.idempotency_key like ${lotRefundPrefix} || '%' then 'package_refund'
                when e.kind = 'charge' then 'call_charge'
                -- What the gateway gave back (a hold's unused part, a failed call's hold) is not a refund: calls cost the difference.
                when e.method = 'gateway' then 'call_return' else 'call_refund' end as flow,
           case when e.kind = 'charge' and e.method = 'package' then coalesce(bought.tool_id, split_part(e.reference, '/', 1))
                when e.kind = 'refund' and e.idempotency_key like ${lotRefundPrefix} || '%' then coalesce(refunded.tool_id, '(unknown)')
                when e.kind = 'charge' then e.method else coalesce(c.method, '(unknown)') end as tool
    from ledger_entries e
    left join ledger_entries c
      on e.kind = 'refund' and c.user_id = e.user_id and c.kind = 'charge'
         -- The gateway's refund names the call by its reference, an operator's (\`admin calls refund\`) by its key.
         and c.idempotency_key = 'usage:' || case when e.idempotency_key like ${operatorRefundPrefix} || '%' then substr(e.idempotency_key, length(${operatorRefundPrefix}) + 1) else e.reference end
    left join unit_lots bought
      on e.kind = 'charge' and e.method = 'package' and bought.user_id = e.user_id and bought.source = 'package'
         and bought.origin = 'purchase:' || substr(e.idempotency_key, length('package:') + 1)
    left join unit_lots refunded
      on e.kind = 'refund' and e.idempotency_key = ${lotRefundPrefix} || refunded.id
    where e.kind in ('charge', 'refund') and ${inRange("e.created_at")}`;
  const sums = sql`coalesce(sum(-amount) filter (where flow in ('call_charge', 'call_return')), 0)::text as charges,
                   coalesce(sum(amount) filter (where flow = 'call_refund'), 0)::text as refunds,
                   coalesce(sum(-amount) filter (where flow = 'package_sale'), 0)::text as packages_sold,
                   coalesce(sum(amount) filter (where flow = 'package_refund'), 0)::text as packages_refunded`;

  return db.transaction(
    async (tx) => {
      const topUps = await queryRows<{ kind: string; method: string; n: number; total: string }>(
        tx,
        sql`select kind::text, method, count(*)::int as n, sum(amount)::text as total from ledger_entries
            where kind in ('topup', 'redemption') and ${inRange("created_at")} group by 1, 2 order by 1, 2`,
      );
      const byTool = await queryRows<{ tool: string } & RevenueRow>(tx, sql`select tool, ${sums} from (${moves}) m group by tool order by tool`);
      const byDay = await queryRows<{ day: string } & RevenueRow>(tx, sql`select ${beijingDayOf("created_at")} as day, ${sums} from (${moves}) m group by 1`);
      const [other] = await queryRows<{
        active_users: number;
        active_keys: number;
        sign_ups: number;
        bonus_n: number;
        bonus_total: string;
        adjust_n: number;
        adjust_total: string;
        net: string;
      }>(
        tx,
        sql`select
              (select count(distinct user_id)::int from usage_records where ${inRange("created_at")}) as active_users,
              (select count(distinct api_key_id)::int from usage_records where ${inRange("created_at")}) as active_keys,
              (select count(*)::int from users where ${inRange("created_at")}) as sign_ups,
              (select count(*)::int from ledger_entries where kind = 'referral_bonus' and ${inRange("created_at")}) as bonus_n,
              (select coalesce(sum(amount), 0)::text from ledger_entries where kind = 'referral_bonus' and ${inRange("created_at")}) as bonus_total,
              (select count(*)::int from ledger_entries where kind = 'adjustment' and ${inRange("created_at")}) as adjust_n,
              (select coalesce(sum(amount), 0)::text from ledger_entries where kind = 'adjustment' and ${inRange("created_at")}) as adjust_total,
              (select coalesce(sum(amount), 0)::text from ledger_entries where ${inRange("created_at")}) as net`,
      );
      const [packages] = await queryRows<{ sold_n: number; sold_total: string; refunded_n: number; refunded_total: string }>(
        tx,
        sql`select count(*) filter (where kind = 'charge')::int as sold_n, coalesce(sum(-amount) filter (where kind = 'charge'), 0)::text as sold_total,
                   count(*) filter (where kind = 'refund')::int as refunded_n, coalesce(sum(amount) filter (where kind = 'refund'), 0)::text as refunded_total
            from ledger_entries
            where ((kind = 'charge' and method = 'package') or (kind = 'refund' and idempotency_key like ${lotRefundPrefix} || '%')) and ${inRange("created_at")}`,
      );
      const drawn = await queryRows<{ source: string; units: string }>(
        tx,
        sql`select l.source::text as source, sum(m.units)::text as units from lot_ledger m join unit_lots l on l.id = m.lot_id
            where m.usage_id is not null and ${inRange("m.created_at")} group by 1 order by 1`,
      );
      const days = new Map(byDay.map((d) => [d.day, d]));
      const revenueByDay: OperatorStats["revenueByDay"] = [];
      for (let at = beijingDayStart(range.from).getTime(); at <= beijingDayStart(range.to).getTime(); at += DAY_MS) {
        const day = beijingDate(new Date(at));
        revenueByDay.push({ day, ...revenueOf(days.get(day)) });
      }
      return {
        range,
        topUps: topUps.map((r) => ({ kind: r.kind, method: r.method, count: Number(r.n), amount: bigintOf(r.total) })),
        revenueByTool: byTool.map((r) => ({ tool: r.tool, ...revenueOf(r) })),
        revenueByDay,
        activeUsers: Number(other?.active_users ?? 0),
        activeKeys: Number(other?.active_keys ?? 0),
        signUps: Number(other?.sign_ups ?? 0),
        referralBonuses: { count: Number(other?.bonus_n ?? 0), amount: bigintOf(other?.bonus_total) },
        adjustments: { count: Number(other?.adjust_n ?? 0), amount: bigintOf(other?.adjust_total) },
        packages: {
          sold: { count: Number(packages?.sold_n ?? 0), amount: bigintOf(packages?.sold_total) },
          refunded: { count: Number(packages?.refunded_n ?? 0), amount: bigintOf(packages?.refunded_total) },
        },
        unitsDrawn: drawn.map((d) => ({ source: d.source, units: Number(d.units) })),
        ledgerNet: bigintOf(other?.net),
      };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
}
