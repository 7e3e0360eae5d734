import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../../db/client";

export type LedgerProblem =
  | { type: "balance_mismatch"; userId: number; balance: bigint; ledgerSum: bigint }
  | { type: "broken_chain"; userId: number; entryId: number; expected: bigint; balanceAfter: bigint }
  /** Entries of a user id no user has: no foreign key refuses them (drizzle/0014), so this check does. */
  | { type: "unknown_user"; userId: number; entries: number };

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
        ],
      };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
}
