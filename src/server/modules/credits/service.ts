import { sql, type SQL } from "drizzle-orm";
import { formatMoney } from "#shared/money";
import { CREDIT_KINDS, type CreditRow, type CreditStatus } from "#shared/money-api";
import { queryRows, type Db } from "../../db/client";
import { CALL_REFUND_METHOD, LOT_REFUND_KEY_PREFIX, OPERATOR_REFUND_KEY_PREFIX, PACKAGE_REFUND_METHOD } from "../ledger/index";
import { decodeCursor, encodeCursor, everyRow } from "../../lib/keyset";

export interface CreditsFilter {
  userId: number;
  from?: Date;
  to?: Date;
}

interface Cursor {
  /** created_at in microseconds since the epoch, exact. */
  at: string;
  key: string;
}

/** `at` has at most 17 digits (until the year 5138): a forged larger one would overflow the database's timestamp arithmetic. */
const validCursor = (v: Record<string, unknown>) =>
  typeof v.at === "string" && /^\d{1,17}$/.test(v.at) && typeof v.key === "string" && /^[lo]\d{1,20}$/.test(v.key);

const lotRefund = sql`idempotency_key like ${`${LOT_REFUND_KEY_PREFIX}%`}`;
const callRefund = sql`idempotency_key like ${`${OPERATOR_REFUND_KEY_PREFIX}%`}`;

/**
 * Money put into the balance: credits of the credit kinds, and an operator's refunds, known by
 * their idempotency key: of a package's unused units (`lot-refund:<lot>`; before decision 060
 * their method read "operator") and of a call (`operator-refund:<request id>`, method "operator").
 * The gateway's own refunds of a call (`refund:<request id>`: a failed or abandoned call's hold,
 * the unused part of a hold at settlement) are not listed: they only undo part of the call's
 * charge, and billing details show the call at what it cost, or not at all. An operator's
 * adjustment is listed either way, a debit as a negative amount: it is in no other statement, and
 * the balance must add up from the two.
 */
const isCredit = sql`((amount > 0 and kind in (${sql.join(
  CREDIT_KINDS.map((k) => sql`${k}::ledger_kind`),
  sql`, `,
)})) or kind = 'adjustment' or (kind = 'refund' and (${lotRefund} or ${callRefund})))`;

/** What a listed entry's method reads: an operator's refund by what it refunded. */
const listedMethod = sql`case when kind <> 'refund' then method when ${callRefund} then ${CALL_REFUND_METHOD}::text else ${PACKAGE_REFUND_METHOD}::text end`;

/**
 * Every credit of the user (succeeded), plus payments started but not confirmed (pending, or
 * closed once their time ran out), as one stream ordered newest first by (time, row key).
 */
function rowsQuery(filter: CreditsFilter, now: Date): SQL {
  return sql`
    select created_at, row_key, method, amount, status, reference from (
      select created_at, 'l' || id as row_key, ${listedMethod} as method, amount, 'succeeded' as status, reference
      from ledger_entries
      where user_id = ${filter.userId} and ${isCredit}
      union all
      select created_at, 'o' || id, provider, amount,
             case when status = 'pending' and expires_at > ${now.toISOString()}::timestamptz then 'pending' else 'closed' end,
             out_trade_no
      from payment_orders
      where user_id = ${filter.userId} and status <> 'paid'
    ) credits`;
}

function rangeConditions(filter: CreditsFilter): SQL[] {
  const conditions: SQL[] = [];
  if (filter.from) conditions.push(sql`created_at >= ${filter.from.toISOString()}::timestamptz`);
  if (filter.to) conditions.push(sql`created_at < ${filter.to.toISOString()}::timestamptz`);
  return conditions;
}

interface Row {
  at_micros: string;
  row_key: string;
  method: string;
  amount: string;
  status: CreditStatus;
  reference: string;
}

export interface CreditsSlice {
  items: CreditRow[];
  nextCursor: string | null;
}

/** One page, newest first, continuing after `cursor` (keyset: no offsets, stable under inserts). */
export async function listCredits(db: Db, filter: CreditsFilter, page: { cursor?: string; limit: number }, now: Date): Promise<CreditsSlice> {
  const conditions = rangeConditions(filter);
  if (page.cursor) {
    const cursor = decodeCursor<Cursor>(page.cursor, validCursor);
    conditions.push(
      sql`(created_at, row_key collate "C") < (timestamptz 'epoch' + ${cursor.at}::bigint * interval '1 microsecond', ${cursor.key} collate "C")`,
    );
  }
  const where = conditions.length > 0 ? sql`where ${sql.join(conditions, sql` and `)}` : sql``;
  const rows = await queryRows<Row>(
    db,
    sql`select (extract(epoch from created_at) * 1000000)::bigint::text as at_micros, row_key, method, amount::text as amount, status, reference
        from (${rowsQuery(filter, now)}) listed
        ${where}
        order by created_at desc, row_key collate "C" desc
        limit ${page.limit + 1}`,
  );
  const items = rows.slice(0, page.limit);
  const last = items[items.length - 1];
  return {
    items: items.map((r) => ({
      id: r.row_key,
      time: new Date(Number(BigInt(r.at_micros) / 1000n)).toISOString(),
      method: r.method,
      amount: formatMoney(BigInt(r.amount)),
      status: r.status,
      reference: r.reference,
    })),
    nextCursor: rows.length > page.limit && last ? encodeCursor({ at: last.at_micros, key: last.row_key }) : null,
  };
}

/** Sum of the succeeded credits in the filter, in micro-units. */
export async function totalCredited(db: Db, filter: CreditsFilter): Promise<bigint> {
  const range = rangeConditions(filter);
  const [row] = await queryRows<{ total: string }>(
    db,
    sql`select coalesce(sum(amount), 0)::text as total from ledger_entries
        where user_id = ${filter.userId} and ${isCredit}
        ${range.length > 0 ? sql`and ${sql.join(range, sql` and `)}` : sql``}`,
  );
  return BigInt(row?.total ?? "0");
}

/** Every row of the filter, fetched a page at a time, so an export never holds the whole list. */
export function allCredits(db: Db, filter: CreditsFilter, now: Date, pageSize = 500): AsyncGenerator<CreditRow> {
  return everyRow((cursor) => listCredits(db, filter, { cursor, limit: pageSize }, now));
}
