import { sql, type SQL } from "drizzle-orm";
import { preparedRows, queryRows, type Db, type PreparedStatement, type Tx } from "../../db/client";
import { arrayLiteral } from "../../db/array-literal";
import { isoTimestamp } from "../../db/iso-timestamp";

/** An operator's refund of a call (`admin calls refund`) is the ledger entry with this key and the call's request id. */
export const OPERATOR_REFUND_KEY_PREFIX = "operator-refund:";
/** How charge details name an operator's refund of a call (the entry's own method is "operator", as an adjustment's). */
export const CALL_REFUND_METHOD = "call_refund";

/** Money back for a call whose tool failed (all of it) or used fewer units than charged (the difference). */
export interface RefundItem {
  usageId: number;
  userId: number;
  apiKeyId: number;
  amount: bigint;
  requestId: string;
  at: Date;
  /** "refunded" when the call failed; "succeeded" when only part of the charge comes back. */
  finalStatus: "refunded" | "succeeded";
  units: number;
  httpStatus: number | null;
  latencyMs: number;
  /** How the refund's ledger entry reads, when not the gateway's own (`refund:<request id>`). */
  entry?: { method: string; reference: string; idempotencyKey: string };
}

const values = (rows: SQL[]) => sql.join(rows, sql`, `);
const ids = (list: number[]) => sql.join(list.map((id) => sql`${id}`), sql`, `);

async function lockedBalances(tx: Tx, userIds: number[]): Promise<Map<number, bigint>> {
  const rows = await queryRows<{ id: number | string; balance: string }>(
    tx,
    sql`select id, balance::text as balance from users where id in (${ids(userIds)}) order by id for update`,
  );
  return new Map(rows.map((r) => [Number(r.id), BigInt(r.balance)]));
}

async function creditBalances(tx: Tx, totals: Map<number, bigint>): Promise<void> {
  const changed = [...totals].filter(([, total]) => total > 0n);
  if (changed.length === 0) return;
  const rows = changed.map(([id, total]) => sql`(${id}::bigint, ${total.toString()}::bigint)`);
  const updated = await queryRows(
    tx,
    sql`update users set balance = users.balance + d.total from (values ${values(rows)}) as d(id, total)
        where users.id = d.id returning users.id`,
  );
  // The rows are locked, so this cannot happen; if it does, roll back.
  if (updated.length !== changed.length) throw new Error("balance changed under a row lock: batch rolled back");
}

const arr = (values: (string | number | null)[]) => sql`${arrayLiteral(values)}`;

const SETTLE_CALL: PreparedStatement = {
  name: "settle_call",
  text: `select settle_call($1::bigint, $2::bigint, $3::bigint, $4::text, $5::timestamptz, $6::usage_status, $7::bigint, $8::int, $9::int) as settled`,
};

/** `settle_call`'s parameters for a call. */
const settleParameters = (item: RefundItem) => [
  item.usageId,
  item.userId,
  item.amount.toString(),
  item.requestId,
  isoTimestamp(item.at),
  item.finalStatus,
  item.units,
  item.httpStatus,
  item.latencyMs,
];

/** What an LLM call's charge paid for, recorded beside its usage row (decision 051). */
export interface LlmUsageItem {
  model: string;
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  inputAmount: bigint;
  cachedInputAmount: bigint;
  outputAmount: bigint;
  origin: "reported" | "counted";
}

const SETTLE_LLM_CALL: PreparedStatement = {
  name: "settle_llm_call",
  text: `with settled as (
           select settle_call($1::bigint, $2::bigint, $3::bigint, $4::text, $5::timestamptz, $6::usage_status, $7::bigint, $8::int, $9::int) as ok
         ), recorded as (
           insert into llm_usage (usage_id, model, input_tokens, cached_input_tokens, output_tokens, input_amount, cached_input_amount, output_amount, origin)
           select $1::bigint, $10::text, $11::int, $12::int, $13::int, $14::bigint, $15::bigint, $16::bigint, $17::token_origin from settled where ok
         )
         select ok as settled from settled`,
};

/**
 * Settles one successful LLM call (what its hold did not cover comes back, as `settle_call` does)
 * and records what it was charged for, in one statement: the tokens are written with the charge
 * they explain, or not at all. false: the call was settled before, and nothing was written.
 */
export async function settleLlmCall(db: Db, item: RefundItem, llm: LlmUsageItem): Promise<boolean> {
  const [row] = await preparedRows<{ settled: boolean }>(db, SETTLE_LLM_CALL, [
    ...settleParameters(item),
    llm.model,
    llm.inputTokens,
    llm.cachedInputTokens,
    llm.outputTokens,
    llm.inputAmount.toString(),
    llm.cachedInputAmount.toString(),
    llm.outputAmount.toString(),
    llm.origin,
  ]);
  if (!row) throw new Error("settle_llm_call answered no row");
  return row.settled;
}

/**
 * Gives back money for failed or over-charged calls, one transaction for the batch. Each answer
 * says whether the call was still pending and is settled now; false: it was settled before (by
 * the abandoned-call sweep), and no money moved for it.
 */
export async function refundBatch(db: Db, items: RefundItem[]): Promise<boolean[]> {
  if (items.length === 1) return [await settleOne(db, items[0]!)];
  const settled = await db.transaction((tx) => refundInTransaction(tx, items));
  return items.map((item) => settled.has(item.usageId));
}

/** `settle_call` (src/server/db/functions/settle_call.sql): refundInTransaction's work for one call, in one statement (docs/decisions/033). */
export async function settleOne(db: Db | Tx, item: RefundItem): Promise<boolean> {
  const [row] = await preparedRows<{ settled: boolean }>(db, SETTLE_CALL, settleParameters(item));
  if (!row) throw new Error("settle_call answered no row");
  return row.settled;
}

/**
 * Refunds calls that are still pending, under a lock on their usage rows: a call settled
 * meanwhile (by its own request, or by the sweeper) is skipped, so no call is refunded twice.
 * `alsoSucceeded`: calls charged for good are refunded too (only for a call known never to have
 * been answered, `resolveUnansweredCall`).
 */
async function refundInTransaction(tx: Tx, requested: RefundItem[], alsoSucceeded = false): Promise<Set<number>> {
  const pending = await queryRows<{ id: number | string }>(
    tx,
    sql`select id from usage_records where id in (${ids(requested.map((i) => i.usageId))})
          and status in ('pending'${alsoSucceeded ? sql`, 'succeeded'` : sql``})
        order by id for update`,
  );
  const stillPending = new Set(pending.map((r) => Number(r.id)));
  const items = requested.filter((i) => stillPending.has(i.usageId));
  if (items.length === 0) return stillPending;
  const userIds = [...new Set(items.map((i) => i.userId))].sort((a, b) => a - b);
  const balances = await lockedBalances(tx, userIds);
  const userTotals = new Map<number, bigint>();
  const entries: SQL[] = [];
  for (const item of items) {
    if (item.amount <= 0n) continue;
    const after = balances.get(item.userId)! + item.amount;
    balances.set(item.userId, after);
    userTotals.set(item.userId, (userTotals.get(item.userId) ?? 0n) + item.amount);
    const entry = item.entry ?? { method: "gateway", reference: item.requestId, idempotencyKey: `refund:${item.requestId}` };
    entries.push(
      sql`(${item.userId}, ${item.amount.toString()}::bigint, ${after.toString()}::bigint, 'refund'::ledger_kind, ${entry.method},
           ${entry.reference}, ${entry.idempotencyKey}, ${item.at.toISOString()}::timestamptz)`,
    );
  }
  await creditBalances(tx, userTotals);
  if (entries.length > 0) {
    await tx.execute(sql`
      insert into ledger_entries (user_id, amount, balance_after, kind, method, reference, idempotency_key, created_at)
      values ${values(entries)}`);
    await refundKeySpend(tx, items.filter((i) => i.amount > 0n));
  }
  // A pending call ends now. One that had ended (refunded later, by an operator or as never
  // answered) keeps when it ended and how long it took; the refund's own time is refunded_at, which
  // the return trigger dates the units given back to lots with. (`usage_records.status` is the row
  // as it was before this update.)
  await tx.execute(sql`
    update usage_records set status = d.status::usage_status, amount = usage_records.amount - d.refund,
      units = d.units, http_status = d.http_status,
      latency_ms = case when usage_records.status = 'pending' then d.latency_ms else coalesce(usage_records.latency_ms, d.latency_ms) end,
      completed_at = case when usage_records.status = 'pending' then d.at else coalesce(usage_records.completed_at, d.at) end,
      refunded_at = case when d.status = 'refunded' then d.at end
    from (values ${values(
      items.map(
        (i) =>
          sql`(${i.usageId}::bigint, ${i.finalStatus}, ${i.amount.toString()}::bigint, ${i.units}::bigint, ${i.httpStatus}::int,
               ${i.latencyMs}::int, ${i.at.toISOString()}::timestamptz)`,
      ),
    )}) as d(id, status, refund, units, http_status, latency_ms, at)
    where usage_records.id = d.id`);
  return stillPending;
}

/**
 * Takes refunds off their keys' lifetime spend and, for calls counted in the period the key now
 * counts (the period recorded with the call, or for older rows the call's own), off
 * that period's spend. A key whose period moved on since `d` was read keeps its new period's spend.
 */
async function refundKeySpend(tx: Tx, items: RefundItem[]): Promise<void> {
  await tx.execute(sql`
    update api_keys set spent = greatest(api_keys.spent - d.total, 0),
      period_spent = case when api_keys.period_start = d.period_start then greatest(api_keys.period_spent - d.in_period, 0)
                          else api_keys.period_spent end
    from (select k.id, k.period_start, sum(r.amount) as total,
                 coalesce(sum(r.amount) filter (where coalesce(u.spend_period_start, spend_period_start(k.spend_limit_period, u.created_at)) = k.period_start), 0) as in_period
          from unnest(${arr(items.map((i) => i.usageId))}::bigint[], ${arr(items.map((i) => i.amount.toString()))}::bigint[]) as r(usage_id, amount)
          join usage_records u on u.id = r.usage_id join api_keys k on k.id = u.api_key_id
          group by k.id, k.period_start) as d
    where api_keys.id = d.id`);
}

/** A usage row as a full refund reads it. */
type RefundableRow = { id: number | string; user_id: number | string; api_key_id: number | string; amount: string; units: number | string; request_id: string };
const REFUNDABLE_COLUMNS = sql`id, user_id, api_key_id, amount::text as amount, units, request_id`;

/** All of a call's charge back: it was never answered. */
const fullRefund = (row: RefundableRow, now: Date): RefundItem => ({
  usageId: Number(row.id),
  userId: Number(row.user_id),
  apiKeyId: Number(row.api_key_id),
  amount: BigInt(row.amount),
  requestId: row.request_id,
  at: now,
  finalStatus: "refunded",
  units: Number(row.units),
  httpStatus: null,
  latencyMs: 0,
});

/**
 * A call is charged before its tool runs; if the server stops before the call ends, its usage
 * row stays pending. Such calls (older than `olderThan`, far beyond any tool's timeout) were
 * never answered, so they are refunded in full. Returns how many, and the money given back.
 */
export async function refundAbandonedCalls(db: Db, input: { olderThan: Date; now: Date; limit?: number }): Promise<{ calls: number; micros: bigint }> {
  return db.transaction(async (tx) => {
    const stale = await queryRows<RefundableRow>(
      tx,
      sql`select ${REFUNDABLE_COLUMNS} from usage_records
          where status = 'pending' and created_at < ${input.olderThan.toISOString()}::timestamptz
          order by id limit ${input.limit ?? 500}`,
    );
    if (stale.length === 0) return { calls: 0, micros: 0n };
    const refunds = stale.map((row) => fullRefund(row, input.now));
    await refundInTransaction(tx, refunds);
    return { calls: stale.length, micros: refunds.reduce((sum, refund) => sum + refund.amount, 0n) };
  });
}

/**
 * What happens to a call whose Idempotency-Key claim holds no answer: its process died (its lease
 * ran out, or the claim outlived the abandoned-call window), or its answer could not be kept. An
 * answer is kept for replay before it is sent, so a call with none was never answered, unless it streamed
 * (`answerBegun`: a stream's head goes out before it is charged, and it cannot be kept). Returns
 * "run" when a retry may run it afresh: it never was charged, it was refunded, or it is refunded
 * now (still pending, or charged for good without an answer begun); "answered" when its stream
 * began and was charged for good: it must not run twice.
 */
export async function resolveUnansweredCall(db: Db | Tx, input: { requestId: string; now: Date; answerBegun: boolean }): Promise<"run" | "answered"> {
  return db.transaction(async (tx) => {
    const [row] = await queryRows<RefundableRow & { status: string }>(
      tx,
      sql`select ${REFUNDABLE_COLUMNS}, status from usage_records where request_id = ${input.requestId} for update`,
    );
    if (!row || row.status === "refunded") return "run";
    if (row.status === "succeeded" && input.answerBegun) return "answered";
    await refundInTransaction(tx, [fullRefund(row, input.now)], true);
    return "run";
  });
}

/** A lot a call drew units from, net of what it gave back. */
export interface CallLot {
  id: number;
  source: "free" | "package" | "grant";
  label: string;
  units: number;
  expiresAt: Date;
  refundedAt: Date | null;
}

export type OperatorRefund =
  | { refunded: bigint; userId: number; lots: CallLot[] }
  | { refused: "unknown" | "pending" | "refunded" | "free" }
  | { refused: "lot_unusable"; lots: CallLot[] };

/** The lots a call holds units of (the `lot_ledger` view by usage id, net of what it gave back), in draw order. */
async function callLots(tx: Tx, usageId: number): Promise<CallLot[]> {
  const rows = await queryRows<{ id: string; source: CallLot["source"]; label: string; units: string; expires_ms: string; refunded_ms: string | null }>(
    tx,
    sql`select l.id::text, l.source, l.label, sum(m.units)::text as units,
               (extract(epoch from l.expires_at) * 1000)::bigint::text as expires_ms, (extract(epoch from l.refunded_at) * 1000)::bigint::text as refunded_ms
        from lot_ledger m join unit_lots l on l.id = m.lot_id
        where m.usage_id = ${usageId}
        group by l.id having sum(m.units) > 0 order by min(m.o)`,
  );
  return rows.map((r) => ({
    id: Number(r.id),
    source: r.source,
    label: r.label,
    units: Number(r.units),
    expiresAt: new Date(Number(r.expires_ms)),
    refundedAt: r.refunded_ms === null ? null : new Date(Number(r.refunded_ms)),
  }));
}

/**
 * An operator's refund of a call charged for good (`admin calls refund`), once, in one transaction:
 * the money it cost comes back as a refund entry naming the operator's reason, the prepaid units it
 * used go back to the lots it drew them from (by the `return_prepaid_units` trigger, as any refund
 * of a call does), and the call reads as refunded. A call still running, already refunded, or that
 * cost neither money nor units is refused; so is a call that drew from a lot no longer usable
 * (expired, or refunded by an operator): units given back to it would be lost, not returned.
 */
export async function refundChargedCall(db: Db, input: { requestId: string; reason: string; now: Date }): Promise<OperatorRefund> {
  return db.transaction(async (tx) => {
    const [row] = await queryRows<RefundableRow & { status: string; http_status: number | null; latency_ms: number | null; prepaid_units: number | string }>(
      tx,
      sql`select ${REFUNDABLE_COLUMNS}, status, http_status, latency_ms, prepaid_units from usage_records where request_id = ${input.requestId} for update`,
    );
    if (!row) return { refused: "unknown" };
    if (row.status === "pending" || row.status === "refunded") return { refused: row.status };
    const prepaid = Number(row.prepaid_units) > 0;
    if (BigInt(row.amount) === 0n && !prepaid) return { refused: "free" };
    let lots: CallLot[] = [];
    if (prepaid) {
      // The user's lock before the lots are read, as every writer of lots takes it (decision 054):
      // an operator's refund of one of them (`packages refund`) waits, or has happened and is seen.
      await tx.execute(sql`select id from users where id = ${Number(row.user_id)} for update`);
      lots = await callLots(tx, Number(row.id));
      if (lots.some((lot) => lot.refundedAt !== null || lot.expiresAt.getTime() <= input.now.getTime())) return { refused: "lot_unusable", lots };
    }
    const refund = fullRefund(row, input.now);
    const entry = { method: "operator", reference: `${input.reason} (call ${row.request_id})`, idempotencyKey: `${OPERATOR_REFUND_KEY_PREFIX}${row.request_id}` };
    await refundInTransaction(tx, [{ ...refund, httpStatus: row.http_status, latencyMs: row.latency_ms ?? 0, entry }], true);
    return { refunded: refund.amount, userId: refund.userId, lots };
  });
}
