import { sql, type SQL } from "drizzle-orm";
import { queryRows, type Db, type Tx } from "../../db/client";

/**
 * One call to charge: before its tool runs (its usage row starts `pending`), or after a built-in
 * tool succeeded, with how it ended (its usage row is written once, `succeeded`).
 */
export interface ChargeItem {
  userId: number;
  apiKeyId: number;
  toolId: string;
  units: number;
  /** Micro-units, ≥ 0. */
  amount: bigint;
  requestId: string;
  at: Date;
  ended?: { httpStatus: number; latencyMs: number; at: Date };
}

export type ChargeOutcome =
  | { ok: true; usageId: number; balance: bigint }
  | { ok: false; reason: "insufficient_balance" | "spend_limit_reached" };

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
}

export interface CompletionItem {
  usageId: number;
  httpStatus: number;
  latencyMs: number;
  at: Date;
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

async function applyBalanceChanges(tx: Tx, totals: Map<number, bigint>, direction: "debit" | "credit"): Promise<void> {
  const changed = [...totals].filter(([, total]) => total > 0n);
  if (changed.length === 0) return;
  const rows = changed.map(([id, total]) => sql`(${id}::bigint, ${total.toString()}::bigint)`);
  const updated =
    direction === "debit"
      ? await queryRows(
          tx,
          sql`update users set balance = users.balance - d.total from (values ${values(rows)}) as d(id, total)
              where users.id = d.id and users.balance >= d.total returning users.id`,
        )
      : await queryRows(
          tx,
          sql`update users set balance = users.balance + d.total from (values ${values(rows)}) as d(id, total)
              where users.id = d.id returning users.id`,
        );
  // The rows are locked and the totals were checked against them, so this cannot happen; if it does, roll back.
  if (updated.length !== changed.length) throw new Error("balance changed under a row lock: batch rolled back");
}

/**
 * One array parameter, as a PostgreSQL array literal (cast in the query to its element type):
 * a batch is a handful of parameters however many calls it holds, and bigints stay exact.
 */
const arr = (values: (string | number | null)[]) => sql`${`{${values.map(arrayElement).join(",")}}`}`;

function arrayElement(value: string | number | null): string {
  if (value === null) return "NULL";
  if (typeof value === "number") return String(value);
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/**
 * Charges a batch of calls in one transaction: one statement locks the users and keys involved in
 * id order and reads their balances and spend; each call is admitted in arrival order while the
 * balance covers it and the key's spend limit allows it; one more statement writes the balances,
 * ledger entries, key spend and usage records. A refused call writes nothing.
 */
export async function chargeBatch(db: Db, items: ChargeItem[]): Promise<ChargeOutcome[]> {
  return db.transaction(async (tx) => {
    const userIds = [...new Set(items.map((i) => i.userId))].sort((a, b) => a - b);
    const keyIds = [...new Set(items.map((i) => i.apiKeyId))].sort((a, b) => a - b);
    const locked = await queryRows<{ kind: "u" | "k"; id: number | string; amount: string; spend_limit: string | null }>(
      tx,
      sql`with lu as (select id, balance from users where id = any(${arr(userIds)}::bigint[]) order by id for update),
               lk as (select id, spent, spend_limit from api_keys where id = any(${arr(keyIds)}::bigint[]) order by id for update)
          select 'u' as kind, id, balance::text as amount, null::text as spend_limit from lu
          union all select 'k', id, spent::text, spend_limit::text from lk`,
    );
    const balances = new Map<number, bigint>();
    const keys = new Map<number, { spent: bigint; limit: bigint | null }>();
    for (const row of locked) {
      if (row.kind === "u") balances.set(Number(row.id), BigInt(row.amount));
      else keys.set(Number(row.id), { spent: BigInt(row.amount), limit: row.spend_limit === null ? null : BigInt(row.spend_limit) });
    }

    const userTotals = new Map<number, bigint>();
    const keyTotals = new Map<number, bigint>();
    const admitted: { item: ChargeItem; index: number; balanceAfter: bigint }[] = [];
    const outcomes: (ChargeOutcome | null)[] = items.map((item, index) => {
      const balance = balances.get(item.userId);
      const key = keys.get(item.apiKeyId);
      if (balance === undefined || key === undefined) throw new Error(`charge for a missing user or key (${item.requestId})`);
      if (balance < item.amount) return { ok: false, reason: "insufficient_balance" };
      if (key.limit !== null && key.spent + item.amount > key.limit) return { ok: false, reason: "spend_limit_reached" };
      balances.set(item.userId, balance - item.amount);
      key.spent += item.amount;
      userTotals.set(item.userId, (userTotals.get(item.userId) ?? 0n) + item.amount);
      keyTotals.set(item.apiKeyId, (keyTotals.get(item.apiKeyId) ?? 0n) + item.amount);
      admitted.push({ item, index, balanceAfter: balance - item.amount });
      return null;
    });
    if (admitted.length === 0) return outcomes as ChargeOutcome[];

    const debited = [...userTotals].filter(([, total]) => total > 0n);
    const paid = admitted.filter((a) => a.item.amount > 0n);
    const rows = await queryRows<{ id: number | string; request_id: string; users_debited: number | string }>(
      tx,
      sql`with
        debit as (
          update users set balance = users.balance - d.total
          from unnest(${arr(debited.map(([id]) => id))}::bigint[], ${arr(debited.map(([, t]) => t.toString()))}::bigint[]) as d(id, total)
          where users.id = d.id and users.balance >= d.total
          returning users.id),
        entries as (
          insert into ledger_entries (user_id, amount, balance_after, kind, method, reference, idempotency_key, created_at)
          select e.user_id, e.amount, e.balance_after, 'charge', e.method, e.reference, 'usage:' || e.reference, e.created_at
          from unnest(${arr(paid.map((a) => a.item.userId))}::bigint[], ${arr(paid.map((a) => (-a.item.amount).toString()))}::bigint[],
                      ${arr(paid.map((a) => a.balanceAfter.toString()))}::bigint[], ${arr(paid.map((a) => a.item.toolId))}::text[],
                      ${arr(paid.map((a) => a.item.requestId))}::text[], ${arr(paid.map((a) => a.item.at.toISOString()))}::timestamptz[])
            as e(user_id, amount, balance_after, method, reference, created_at)),
        spend as (
          update api_keys set spent = api_keys.spent + d.total, last_used_at = ${admitted[admitted.length - 1]!.item.at.toISOString()}::timestamptz
          from unnest(${arr([...keyTotals.keys()])}::bigint[], ${arr([...keyTotals.values()].map(String))}::bigint[]) as d(id, total)
          where api_keys.id = d.id),
        usage as (
          insert into usage_records (user_id, api_key_id, tool_id, units, amount, status, request_id, created_at, http_status, latency_ms, completed_at)
          select r.user_id, r.api_key_id, r.tool_id, r.units, r.amount,
                 case when r.http_status is null then 'pending' else 'succeeded' end::usage_status,
                 r.request_id, r.created_at, r.http_status, r.latency_ms, r.completed_at
          from unnest(${arr(admitted.map((a) => a.item.userId))}::bigint[], ${arr(admitted.map((a) => a.item.apiKeyId))}::bigint[],
                      ${arr(admitted.map((a) => a.item.toolId))}::text[], ${arr(admitted.map((a) => a.item.units))}::bigint[],
                      ${arr(admitted.map((a) => a.item.amount.toString()))}::bigint[], ${arr(admitted.map((a) => a.item.requestId))}::text[],
                      ${arr(admitted.map((a) => a.item.at.toISOString()))}::timestamptz[],
                      ${arr(admitted.map((a) => a.item.ended?.httpStatus ?? null))}::int[],
                      ${arr(admitted.map((a) => a.item.ended?.latencyMs ?? null))}::int[],
                      ${arr(admitted.map((a) => a.item.ended?.at.toISOString() ?? null))}::timestamptz[])
            as r(user_id, api_key_id, tool_id, units, amount, request_id, created_at, http_status, latency_ms, completed_at)
          returning id, request_id)
      select usage.id, usage.request_id, (select count(*) from debit) as users_debited from usage`,
    );
    // The balances were locked and checked above, so every debit applies; if one did not, roll back.
    if (rows.length !== admitted.length || Number(rows[0]?.users_debited ?? 0) !== debited.length) {
      throw new Error("a locked balance changed under the batch: rolled back");
    }
    const usageIds = new Map(rows.map((r) => [r.request_id, Number(r.id)]));
    for (const { item, index, balanceAfter } of admitted) {
      outcomes[index] = { ok: true, usageId: usageIds.get(item.requestId)!, balance: balanceAfter };
    }
    return outcomes as ChargeOutcome[];
  });
}

/** Gives back money for failed or over-charged calls, one transaction for the batch. */
export async function refundBatch(db: Db, items: RefundItem[]): Promise<void[]> {
  await db.transaction((tx) => refundInTransaction(tx, items));
  return items.map(() => undefined);
}

/**
 * Refunds calls that are still pending, under a lock on their usage rows: a call settled
 * meanwhile (by its own request, or by the sweeper) is skipped, so no call is refunded twice.
 */
async function refundInTransaction(tx: Tx, requested: RefundItem[]): Promise<void> {
  const pending = await queryRows<{ id: number | string }>(
    tx,
    sql`select id from usage_records where id in (${ids(requested.map((i) => i.usageId))}) and status = 'pending'
        order by id for update`,
  );
  const stillPending = new Set(pending.map((r) => Number(r.id)));
  const items = requested.filter((i) => stillPending.has(i.usageId));
  if (items.length === 0) return;
  const userIds = [...new Set(items.map((i) => i.userId))].sort((a, b) => a - b);
  const balances = await lockedBalances(tx, userIds);
  const userTotals = new Map<number, bigint>();
  const keyTotals = new Map<number, bigint>();
  const entries: SQL[] = [];
  for (const item of items) {
    if (item.amount <= 0n) continue;
    const after = balances.get(item.userId)! + item.amount;
    balances.set(item.userId, after);
    userTotals.set(item.userId, (userTotals.get(item.userId) ?? 0n) + item.amount);
    keyTotals.set(item.apiKeyId, (keyTotals.get(item.apiKeyId) ?? 0n) + item.amount);
    entries.push(
      sql`(${item.userId}, ${item.amount.toString()}::bigint, ${after.toString()}::bigint, 'refund'::ledger_kind, 'gateway',
           ${item.requestId}, ${`refund:${item.requestId}`}, ${item.at.toISOString()}::timestamptz)`,
    );
  }
  await applyBalanceChanges(tx, userTotals, "credit");
  if (entries.length > 0) {
    await tx.execute(sql`
      insert into ledger_entries (user_id, amount, balance_after, kind, method, reference, idempotency_key, created_at)
      values ${values(entries)}`);
    await tx.execute(sql`
      update api_keys set spent = greatest(api_keys.spent - d.total, 0)
      from (values ${values([...keyTotals].map(([id, total]) => sql`(${id}::bigint, ${total.toString()}::bigint)`))}) as d(id, total)
      where api_keys.id = d.id`);
  }
  await tx.execute(sql`
    update usage_records set status = d.status::usage_status, amount = usage_records.amount - d.refund,
      units = d.units, http_status = d.http_status, latency_ms = d.latency_ms, completed_at = d.at
    from (values ${values(
      items.map(
        (i) =>
          sql`(${i.usageId}::bigint, ${i.finalStatus}, ${i.amount.toString()}::bigint, ${i.units}::bigint, ${i.httpStatus}::int,
               ${i.latencyMs}::int, ${i.at.toISOString()}::timestamptz)`,
      ),
    )}) as d(id, status, refund, units, http_status, latency_ms, at)
    where usage_records.id = d.id`);
}

/**
 * A call is charged before its tool runs; if the server stops before the call ends, its usage
 * row stays pending. Such calls (older than `olderThan`, far beyond any tool's timeout) were
 * never answered, so they are refunded in full. Returns how many.
 */
export async function refundAbandonedCalls(db: Db, input: { olderThan: Date; now: Date; limit?: number }): Promise<number> {
  return db.transaction(async (tx) => {
    const stale = await queryRows<{ id: number | string; user_id: number | string; api_key_id: number | string; amount: string; units: number | string; request_id: string }>(
      tx,
      sql`select id, user_id, api_key_id, amount::text as amount, units, request_id from usage_records
          where status = 'pending' and created_at < ${input.olderThan.toISOString()}::timestamptz
          order by id limit ${input.limit ?? 500}`,
    );
    if (stale.length === 0) return 0;
    await refundInTransaction(
      tx,
      stale.map((r) => ({
        usageId: Number(r.id),
        userId: Number(r.user_id),
        apiKeyId: Number(r.api_key_id),
        amount: BigInt(r.amount),
        requestId: r.request_id,
        at: input.now,
        finalStatus: "refunded",
        units: Number(r.units),
        httpStatus: null,
        latencyMs: 0,
      })),
    );
    return stale.length;
  });
}

/** Records how successful calls ended; money is not touched. */
export async function completeBatch(db: Db, items: CompletionItem[]): Promise<void[]> {
  await db.execute(sql`
    update usage_records set status = 'succeeded', http_status = d.http_status, latency_ms = d.latency_ms, completed_at = d.at
    from unnest(${arr(items.map((i) => i.usageId))}::bigint[], ${arr(items.map((i) => i.httpStatus))}::int[],
                ${arr(items.map((i) => i.latencyMs))}::int[], ${arr(items.map((i) => i.at.toISOString()))}::timestamptz[])
      as d(id, http_status, latency_ms, at)
    where usage_records.id = d.id and usage_records.status = 'pending'`);
  return items.map(() => undefined);
}
