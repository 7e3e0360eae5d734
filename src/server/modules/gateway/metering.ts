import { sql, type SQL } from "drizzle-orm";
import { queryRows, type Db, type Tx } from "../../db/client";

/** One call to charge before its tool runs. */
export interface ChargeItem {
  userId: number;
  apiKeyId: number;
  toolId: string;
  units: number;
  /** Micro-units, ≥ 0. */
  amount: bigint;
  requestId: string;
  at: Date;
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
 * Charges a batch of calls in one transaction: the users and keys involved are locked in id order,
 * each call is admitted in arrival order while the balance covers it and the key's spend limit
 * allows it, and the balances, ledger entries, key spend and usage records are written with one
 * statement each. A refused call writes nothing.
 */
export async function chargeBatch(db: Db, items: ChargeItem[]): Promise<ChargeOutcome[]> {
  return db.transaction(async (tx) => {
    const userIds = [...new Set(items.map((i) => i.userId))].sort((a, b) => a - b);
    const keyIds = [...new Set(items.map((i) => i.apiKeyId))].sort((a, b) => a - b);
    const balances = await lockedBalances(tx, userIds);
    const keyRows = await queryRows<{ id: number | string; spent: string; spend_limit: string | null }>(
      tx,
      sql`select id, spent::text as spent, spend_limit::text as spend_limit from api_keys
          where id in (${ids(keyIds)}) order by id for update`,
    );
    const keys = new Map(keyRows.map((k) => [Number(k.id), { spent: BigInt(k.spent), limit: k.spend_limit === null ? null : BigInt(k.spend_limit) }]));

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

    await applyBalanceChanges(tx, userTotals, "debit");
    const paid = admitted.filter((a) => a.item.amount > 0n);
    if (paid.length > 0) {
      await tx.execute(sql`
        insert into ledger_entries (user_id, amount, balance_after, kind, method, reference, idempotency_key, created_at)
        values ${values(
          paid.map(
            ({ item, balanceAfter }) =>
              sql`(${item.userId}, ${(-item.amount).toString()}::bigint, ${balanceAfter.toString()}::bigint, 'charge'::ledger_kind,
                   ${item.toolId}, ${item.requestId}, ${`usage:${item.requestId}`}, ${item.at.toISOString()}::timestamptz)`,
          ),
        )}`);
    }
    const lastUsed = admitted[admitted.length - 1]!.item.at.toISOString();
    await tx.execute(sql`
      update api_keys set spent = api_keys.spent + d.total, last_used_at = ${lastUsed}::timestamptz
      from (values ${values([...keyTotals].map(([id, total]) => sql`(${id}::bigint, ${total.toString()}::bigint)`))}) as d(id, total)
      where api_keys.id = d.id`);
    const inserted = await queryRows<{ id: number | string; request_id: string }>(
      tx,
      sql`insert into usage_records (user_id, api_key_id, tool_id, units, amount, status, request_id, created_at)
          values ${values(
            admitted.map(
              ({ item }) =>
                sql`(${item.userId}, ${item.apiKeyId}, ${item.toolId}, ${item.units}, ${item.amount.toString()}::bigint,
                     'pending'::usage_status, ${item.requestId}, ${item.at.toISOString()}::timestamptz)`,
            ),
          )}
          returning id, request_id`,
    );
    const usageIds = new Map(inserted.map((r) => [r.request_id, Number(r.id)]));
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
    from (values ${values(
      items.map((i) => sql`(${i.usageId}::bigint, ${i.httpStatus}::int, ${i.latencyMs}::int, ${i.at.toISOString()}::timestamptz)`),
    )}) as d(id, http_status, latency_ms, at)
    where usage_records.id = d.id and usage_records.status = 'pending'`);
  return items.map(() => undefined);
}
