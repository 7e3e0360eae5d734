import { eq, inArray, sql, type SQL } from "drizzle-orm";
import type { BillingRow, LlmChargeRow, PaidPart } from "#shared/billing";
import { formatMoney } from "#shared/money";
import { queryRows, type Db } from "../../db/client";
import { lotMoves, unitLots } from "../../db/schema/index";
import { beforeTimeId, encodeCursor, everyRow } from "../../lib/keyset";

export interface BillingFilter {
  userId: number;
  from?: Date;
  to?: Date;
  toolId?: string;
  keyId?: number;
}

/** Charged calls only: a refunded call cost nothing and is not billed. */
function conditions(filter: BillingFilter): SQL[] {
  const where = [sql`u.user_id = ${filter.userId}`, sql`u.status <> 'refunded'`];
  if (filter.from) where.push(sql`u.created_at >= ${filter.from.toISOString()}::timestamptz`);
  if (filter.to) where.push(sql`u.created_at < ${filter.to.toISOString()}::timestamptz`);
  if (filter.toolId) where.push(sql`u.tool_id = ${filter.toolId}`);
  if (filter.keyId) where.push(sql`u.api_key_id = ${filter.keyId}`);
  return where;
}

interface Row {
  id: number | string;
  at_micros: string;
  tool_id: string;
  api_key_id: number | string;
  key_name: string;
  units: number | string;
  prepaid_units: number | string;
  amount: string;
  request_id: string;
  model: string | null;
  input_tokens: number | null;
  cached_input_tokens: number | null;
  output_tokens: number | null;
  input_amount: string | null;
  cached_input_amount: string | null;
  output_amount: string | null;
  origin: "reported" | "counted" | null;
}

function llmCharge(r: Row): LlmChargeRow | null {
  if (r.model === null) return null;
  const cached = BigInt(r.cached_input_amount!);
  return {
    model: r.model,
    inputTokens: Number(r.input_tokens),
    cachedInputTokens: Number(r.cached_input_tokens),
    outputTokens: Number(r.output_tokens),
    inputAmount: formatMoney(BigInt(r.input_amount!) + cached),
    cachedInputAmount: formatMoney(cached),
    outputAmount: formatMoney(BigInt(r.output_amount!)),
    origin: r.origin!,
  };
}

/**
 * The lots each call drew from, net of what its settlement gave back (lot_moves by usage id), in
 * the order it drew them; a lot it gave everything back to is left out.
 */
async function lotPartsOf(db: Db, usageIds: number[]): Promise<Map<number, PaidPart[]>> {
  const parts = new Map<number, PaidPart[]>();
  if (usageIds.length === 0) return parts;
  const rows = await db
    .select({
      usageId: lotMoves.usageId,
      source: unitLots.source,
      name: unitLots.label,
      expiresAt: unitLots.expiresAt,
      units: sql<string>`sum(${lotMoves.units})::text`,
    })
    .from(lotMoves)
    .innerJoin(unitLots, eq(unitLots.id, lotMoves.lotId))
    .where(inArray(lotMoves.usageId, usageIds))
    .groupBy(lotMoves.usageId, unitLots.id)
    .having(sql`sum(${lotMoves.units}) > 0`)
    .orderBy(lotMoves.usageId, sql`min(${lotMoves.id})`);
  for (const row of rows) {
    const part: PaidPart = { source: row.source, name: row.source === "free" ? null : row.name, units: Number(row.units), expiresAt: row.expiresAt.toISOString() };
    parts.set(Number(row.usageId), [...(parts.get(Number(row.usageId)) ?? []), part]);
  }
  return parts;
}

/** A call's lots, then the balance for the units they did not cover (the whole call when no lot paid). */
function paidBy(lots: PaidPart[], balanceUnits: number): PaidPart[] {
  if (balanceUnits <= 0 && lots.length > 0) return lots;
  return [...lots, { source: "balance", name: null, units: balanceUnits, expiresAt: null }];
}

/** One page, newest first, continuing after `cursor` (keyset on (created_at, id): stable under inserts). */
export async function listBilling(db: Db, filter: BillingFilter, page: { cursor?: string; limit: number }) {
  const where = conditions(filter);
  if (page.cursor) where.push(beforeTimeId(sql`u.created_at`, sql`u.id`, page.cursor));
  const rows = await queryRows<Row>(
    db,
    sql`select u.id, (extract(epoch from u.created_at) * 1000000)::bigint::text as at_micros, u.tool_id, u.api_key_id,
               -- An LLM call's units are the micro-units it was held and charged (decision 051): its usage is its tokens.
               k.name as key_name, coalesce(l.input_tokens + l.output_tokens, u.units) as units, u.prepaid_units, u.amount::text as amount, u.request_id,
               l.model, l.input_tokens, l.cached_input_tokens, l.output_tokens, l.input_amount::text as input_amount,
               l.cached_input_amount::text as cached_input_amount, l.output_amount::text as output_amount, l.origin
        from usage_records u join api_keys k on k.id = u.api_key_id left join llm_usage l on l.usage_id = u.id
        where ${sql.join(where, sql` and `)}
        order by u.created_at desc, u.id desc
        limit ${page.limit + 1}`,
  );
  const items = rows.slice(0, page.limit);
  const last = items[items.length - 1];
  const lotParts = await lotPartsOf(db, items.map((r) => Number(r.id)));
  return {
    items: items.map(
      (r): BillingRow => ({
        id: Number(r.id),
        time: new Date(Number(BigInt(r.at_micros) / 1000n)).toISOString(),
        toolId: r.tool_id,
        keyId: Number(r.api_key_id),
        keyName: r.key_name,
        units: Number(r.units),
        amount: formatMoney(BigInt(r.amount)),
        requestId: r.request_id,
        llm: llmCharge(r),
        paidBy: paidBy(lotParts.get(Number(r.id)) ?? [], Number(r.units) - Number(r.prepaid_units)),
      }),
    ),
    nextCursor: rows.length > page.limit && last ? encodeCursor({ at: last.at_micros, id: Number(last.id) }) : null,
  };
}

export async function billingTotal(db: Db, filter: BillingFilter): Promise<{ calls: number; amount: string }> {
  const [row] = await queryRows<{ calls: string; amount: string }>(
    db,
    sql`select count(*)::text as calls, coalesce(sum(u.amount), 0)::text as amount
        from usage_records u where ${sql.join(conditions(filter), sql` and `)}`,
  );
  return { calls: Number(row?.calls ?? 0), amount: formatMoney(BigInt(row?.amount ?? "0")) };
}

export function allBilling(db: Db, filter: BillingFilter): AsyncGenerator<BillingRow> {
  return everyRow((cursor) => listBilling(db, filter, { cursor, limit: 500 }));
}
