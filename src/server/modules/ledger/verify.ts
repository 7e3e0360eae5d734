import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../../db/client";

export type LedgerProblem =
  | { type: "balance_mismatch"; userId: number; balance: bigint; ledgerSum: bigint }
  | { type: "broken_chain"; userId: number; entryId: number; expected: bigint; balanceAfter: bigint }
  /** Entries of a user id no user has: no foreign key refuses them (drizzle/0014), so this check does. */
  | { type: "unknown_user"; userId: number; entries: number }
  /** A lot whose units used (granted − left) differ from the sum of its moves. */
  | { type: "lot_mismatch"; lotId: number; userId: number; used: number; moved: number }
  /** A call whose prepaid units differ from what its lot moves drew (net of what they gave back). */
  | { type: "prepaid_mismatch"; requestId: string; userId: number; prepaidUnits: number; drawn: number }
  /** A call that drew from a lot of another user or another tool, or from a free quota of another period than the call's. */
  | { type: "foreign_draw"; requestId: string; userId: number; lotId: number };

export interface LedgerReport {
  users: number;
  entries: number;
  /** Empty when every balance equals the sum of its entries and every balance_after follows from the one before. */
  problems: LedgerProblem[];
}

/** How many problems of each type a report lists; the check itself covers every row. */
const REPORT_LIMIT = 100;

/** Checks the whole ledger against the balances on one consistent snapshot. */
export async function verifyLedger(db: Db): Promise<LedgerReport> {
  return db.transaction(
    async (tx) => {
      const [counts] = await queryRows<{ users: string; entries: string }>(
        tx,
        sql`select (select count(*) from users)::text as users, (select count(*) from ledger_entries)::text as entries`,
      );
      const mismatches = await queryRows<{ user_id: string; balance: string; ledger_sum: string }>(
        tx,
        sql`select u.id::text as user_id, u.balance::text as balance, coalesce(s.total, 0)::text as ledger_sum
            from users u left join (select user_id, sum(amount) as total from ledger_entries group by user_id) s on s.user_id = u.id
            where u.balance <> coalesce(s.total, 0)
            order by u.id limit ${REPORT_LIMIT}`,
      );
      const breaks = await queryRows<{ user_id: string; id: string; expected: string; balance_after: string }>(
        tx,
        sql`select user_id::text, id::text, (previous + amount)::text as expected, balance_after::text from (
              select user_id, id, amount, balance_after,
                     coalesce(lag(balance_after) over (partition by user_id order by id), 0) as previous
              from ledger_entries
            ) chain
            where balance_after <> previous + amount
            order by user_id, id limit ${REPORT_LIMIT}`,
      );
      const orphans = await queryRows<{ user_id: string; entries: string }>(
        tx,
        sql`select e.user_id::text, count(*)::text as entries from ledger_entries e
            where not exists (select 1 from users u where u.id = e.user_id)
            group by e.user_id order by e.user_id limit ${REPORT_LIMIT}`,
      );
      const lots = await queryRows<{ id: string; user_id: string; used: string; moved: string }>(
        tx,
        sql`select l.id::text, l.user_id::text, (l.units_granted - l.units_left)::text as used, coalesce(m.moved, 0)::text as moved
            from unit_lots l left join (select lot_id, sum(units) as moved from lot_ledger m group by lot_id) m on m.lot_id = l.id
            where l.units_granted - l.units_left <> coalesce(m.moved, 0)
            order by l.id limit ${REPORT_LIMIT}`,
      );
      const draws = await queryRows<{ request_id: string; user_id: string; prepaid_units: string; drawn: string }>(
        tx,
        sql`select u.request_id, u.user_id::text, u.prepaid_units::text, coalesce(m.drawn, 0)::text as drawn
            from usage_records u full join (select usage_id, sum(units) as drawn from lot_ledger m where usage_id is not null group by usage_id) m on m.usage_id = u.id
            where coalesce(u.prepaid_units, -1) <> coalesce(m.drawn, 0) and (u.prepaid_units > 0 or m.drawn is not null)
            order by u.id limit ${REPORT_LIMIT}`,
      );
      const foreign = await queryRows<{ request_id: string; user_id: string; lot_id: string }>(
        tx,
        sql`select distinct u.request_id, u.user_id::text, l.id::text as lot_id
            from lot_ledger m join usage_records u on u.id = m.usage_id join unit_lots l on l.id = m.lot_id
            where m.units > 0 and (l.user_id <> u.user_id or l.tool_id <> u.tool_id
                  or (l.source = 'free' and not (u.created_at >= l.effective_at and u.created_at < l.expires_at)))
            order by u.request_id limit ${REPORT_LIMIT}`,
      );
      return {
        users: Number(counts!.users),
        entries: Number(counts!.entries),
        problems: [
          ...mismatches.map((r) => ({
            type: "balance_mismatch" as const,
            userId: Number(r.user_id),
            balance: BigInt(r.balance),
            ledgerSum: BigInt(r.ledger_sum),
          })),
          ...breaks.map((r) => ({
            type: "broken_chain" as const,
            userId: Number(r.user_id),
            entryId: Number(r.id),
            expected: BigInt(r.expected),
            balanceAfter: BigInt(r.balance_after),
          })),
          ...orphans.map((r) => ({ type: "unknown_user" as const, userId: Number(r.user_id), entries: Number(r.entries) })),
          ...lots.map((r) => ({ type: "lot_mismatch" as const, lotId: Number(r.id), userId: Number(r.user_id), used: Number(r.used), moved: Number(r.moved) })),
          ...draws.map((r) => ({
            type: "prepaid_mismatch" as const,
            requestId: r.request_id,
            userId: Number(r.user_id),
            prepaidUnits: Number(r.prepaid_units),
            drawn: Number(r.drawn),
          })),
          ...foreign.map((r) => ({ type: "foreign_draw" as const, requestId: r.request_id, userId: Number(r.user_id), lotId: Number(r.lot_id) })),
        ],
      };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
}
