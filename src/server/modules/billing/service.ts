import { sql, type SQL } from "drizzle-orm";
import type { BillingRow, LlmChargeRow, PaidPart } from "#shared/billing";
import { beijingDate } from "#shared/beijing-time";
import { formatMoney } from "#shared/money";
import { queryRows, type Db } from "../../db/client";
import { OPERATOR_REFUND_KEY_PREFIX } from "../ledger/index";
import { beforeTimeRankId, encodeCursor, everyRow } from "../../lib/keyset";

export interface BillingFilter {
  userId: number;
  from?: Date;
  to?: Date;
  toolId?: string;
  keyId?: number;
}

/**
 * An operator's refund of a call (`admin calls refund`): the call's own ledger entry, joined as `r`
 * to a usage row `u` that reads refunded. It is a credit on charge details, so the call stays
 * billed at what it cost (the refund's amount: the usage row's is net of it), and the two
 * statements still add up to the balance.
 */
const operatorRefundOf = sql`left join ledger_entries r on u.status = 'refunded' and r.user_id = u.user_id
  and r.idempotency_key = ${OPERATOR_REFUND_KEY_PREFIX}::text || u.request_id`;
const callCost = sql`u.amount + coalesce(r.amount, 0)`;

/**
 * Charged calls only: a call the gateway refunded (it failed, or was never answered) cost nothing
 * and is not billed; one an operator refunded was charged, and is (`operatorRefundOf`).
 */
function callConditions(filter: BillingFilter): SQL[] {
  const where = [sql`u.user_id = ${filter.userId}`, sql`(u.status <> 'refunded' or r.id is not null)`];
  if (filter.from) where.push(sql`u.created_at >= ${filter.from.toISOString()}::timestamptz`);
  if (filter.to) where.push(sql`u.created_at < ${filter.to.toISOString()}::timestamptz`);
  if (filter.toolId) where.push(sql`u.tool_id = ${filter.toolId}`);
  if (filter.keyId) where.push(sql`u.api_key_id = ${filter.keyId}`);
  return where;
}

/** Packages bought from the balance; none under a key's filter, as no key buys them. A grant cost nothing and is not billed. */
function purchaseConditions(filter: BillingFilter): SQL[] | null {
  if (filter.keyId) return null;
  const where = [sql`p.user_id = ${filter.userId}`, sql`p.source = 'package'`];
  if (filter.from) where.push(sql`p.created_at >= ${filter.from.toISOString()}::timestamptz`);
  if (filter.to) where.push(sql`p.created_at < ${filter.to.toISOString()}::timestamptz`);
  if (filter.toolId) where.push(sql`p.tool_id = ${filter.toolId}`);
  return where;
}

/** Where a purchase and a call share a time, the call is listed above it: the package was bought first. */
const RANK = { purchase: 0, call: 1 } as const;

interface Row {
  kind: "call" | "purchase";
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
  package_id: string | null;
  label: string | null;
  expires_ms: string | null;
  refunded_ms: string | null;
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

interface LotPartRow {
  usage_id: string;
  source: "free" | "package" | "grant";
  label: string;
  package_id: string | null;
  units_granted: string;
  effective_ms: string;
  expires_ms: string;
  units: string;
  free_used: string | null;
}

const isoOfMs = (ms: string) => new Date(Number(ms)).toISOString();

function lotPart(row: LotPartRow): PaidPart {
  const free = row.source === "free";
  const oneDay = Number(row.expires_ms) - Number(row.effective_ms) <= 24 * 3600_000;
  return {
    source: row.source,
    name: free ? null : row.label,
    units: Number(row.units),
    expiresAt: isoOfMs(row.expires_ms),
    packageId: row.package_id,
    free: free ? { used: Number(row.free_used), of: Number(row.units_granted), period: oneDay ? "day" : "month", periodStart: isoOfMs(row.effective_ms) } : null,
  };
}

/**
 * The lots each call drew from, net of what its settlement gave back (the `lot_ledger` view by usage id), in
 * the order it drew them; a lot it gave everything back to is left out. For a free quota, also how
 * much of it the calls that drew from it before, and this one, used: a period's free lot holds at
 * most its quota's worth of calls, and its draws are all `lot_moves` rows, so that running sum reads
 * few rows, by lot_moves' index on the lot.
 */
export async function lotPartsOf(db: Db, usageIds: number[]): Promise<Map<number, PaidPart[]>> {
  const parts = new Map<number, PaidPart[]>();
  if (usageIds.length === 0) return parts;
  const ids = sql.join(usageIds.map((id) => sql`${id}`), sql`, `);
  const rows = await queryRows<LotPartRow>(
    db,
    sql`with mine as (
          select m.usage_id, m.lot_id, sum(m.units) as units, min(m.o) as first_move
          from lot_ledger m where m.usage_id in (${ids}) group by m.usage_id, m.lot_id),
        free_running as (
          select m.usage_id, m.lot_id, sum(sum(m.units)) over (partition by m.lot_id order by min(m.id)) as used
          from lot_moves m join unit_lots l on l.id = m.lot_id and l.source = 'free'
          where m.lot_id in (select lot_id from mine) and m.usage_id is not null
          group by m.usage_id, m.lot_id)
        select mine.usage_id::text, l.source, l.label, l.package_id, l.units_granted::text,
               (extract(epoch from l.effective_at) * 1000)::bigint::text as effective_ms,
               (extract(epoch from l.expires_at) * 1000)::bigint::text as expires_ms,
               mine.units::text, f.used::text as free_used
        from mine join unit_lots l on l.id = mine.lot_id
        left join free_running f on f.usage_id = mine.usage_id and f.lot_id = mine.lot_id
        where mine.units > 0
        order by mine.usage_id, mine.first_move`,
  );
  for (const row of rows) parts.set(Number(row.usage_id), [...(parts.get(Number(row.usage_id)) ?? []), lotPart(row)]);
  return parts;
}

/** A call's lots, then the balance for the units they did not cover (the whole call when no lot paid). */
export function paidBy(lots: PaidPart[], balanceUnits: number): PaidPart[] {
  if (balanceUnits <= 0 && lots.length > 0) return lots;
  return [...lots, { source: "balance", name: null, units: balanceUnits, expiresAt: null, packageId: null, free: null }];
}

/** A free quota's period as a file read later names it: `2026-03` or `2026-03-05` (Beijing). */
const periodName = (free: NonNullable<PaidPart["free"]>) => beijingDate(free.periodStart).slice(0, free.period === "month" ? 7 : 10);

/** What paid for a call, in English (the billing CSV's cell, `admin calls show`): `free 3/3 in 2026-03 ×3 + package Starter, expires 2026-03-31 ×4`. */
export function paidByWords(parts: PaidPart[]): string {
  const words = (part: PaidPart) => {
    if (part.free) return `free ${part.free.used}/${part.free.of} ${part.free.period === "month" ? "in" : "on"} ${periodName(part.free)}`;
    return part.source === "balance" ? "balance" : `${part.source} ${part.name}, expires ${beijingDate(part.expiresAt!)}`;
  };
  return parts.length === 1 ? words(parts[0]!) : parts.map((part) => `${words(part)} ×${part.units}`).join(" + ");
}


const calls = (where: SQL[], limit: number) => sql`(
  select 'call' as kind, u.id, u.created_at, u.tool_id, u.api_key_id,
         -- An LLM call's units are the micro-units it was held and charged (decision 051): its usage is its tokens.
         k.name as key_name, coalesce(l.input_tokens + l.output_tokens, u.units) as units, u.prepaid_units, ${callCost} as amount, u.request_id,
         l.model, l.input_tokens, l.cached_input_tokens, l.output_tokens, l.input_amount, l.cached_input_amount, l.output_amount, l.origin,
         null as package_id, null as label, null::timestamptz as expires_at, null::timestamptz as refunded_at
  from usage_records u join api_keys k on k.id = u.api_key_id left join llm_usage l on l.usage_id = u.id ${operatorRefundOf}
  where ${sql.join(where, sql` and `)}
  order by u.created_at desc, u.id desc
  limit ${limit})`;

const purchases = (where: SQL[], limit: number) => sql`(
  select 'purchase', p.id, p.created_at, p.tool_id, null, null, p.units_granted, 0, p.price_paid, null,
         null, null, null, null, null, null, null, null,
         p.package_id, p.label, p.expires_at, p.refunded_at
  from unit_lots p
  where ${sql.join(where, sql` and `)}
  order by p.created_at desc, p.id desc
  limit ${limit})`;

const billingRow = (r: Row, lotParts: Map<number, PaidPart[]>): BillingRow => {
  const common = { id: Number(r.id), time: new Date(Number(BigInt(r.at_micros) / 1000n)).toISOString(), toolId: r.tool_id, units: Number(r.units), amount: formatMoney(BigInt(r.amount)), llm: null };
  if (r.kind === "purchase") {
    const purchase = { lotId: Number(r.id), packageId: r.package_id!, name: r.label!, expiresAt: isoOfMs(r.expires_ms!), refundedAt: r.refunded_ms === null ? null : isoOfMs(r.refunded_ms) };
    return { ...common, kind: "purchase", keyId: null, keyName: null, requestId: null, paidBy: paidBy([], Number(r.units)), purchase };
  }
  return {
    ...common,
    kind: "call",
    keyId: Number(r.api_key_id),
    keyName: r.key_name,
    requestId: r.request_id,
    llm: llmCharge(r),
    paidBy: paidBy(lotParts.get(Number(r.id)) ?? [], Number(r.units) - Number(r.prepaid_units)),
    purchase: null,
  };
};

/**
 * One page, newest first, continuing after `cursor`: the charged calls and the packages bought,
 * merged (keyset on (created_at, rank, id), each kind read in its own index order: stable under inserts).
 */
export async function listBilling(db: Db, filter: BillingFilter, page: { cursor?: string; limit: number }) {
  const callWhere = callConditions(filter);
  const purchaseWhere = purchaseConditions(filter);
  if (page.cursor) {
    callWhere.push(beforeTimeRankId(sql`u.created_at`, RANK.call, sql`u.id`, page.cursor));
    purchaseWhere?.push(beforeTimeRankId(sql`p.created_at`, RANK.purchase, sql`p.id`, page.cursor));
  }
  const limit = page.limit + 1;
  const rows = await queryRows<Row>(
    db,
    sql`select kind, id, (extract(epoch from created_at) * 1000000)::bigint::text as at_micros, tool_id, api_key_id, key_name, units, prepaid_units,
               amount::text as amount, request_id, model, input_tokens, cached_input_tokens, output_tokens, input_amount::text as input_amount,
               cached_input_amount::text as cached_input_amount, output_amount::text as output_amount, origin, package_id, label,
               (extract(epoch from expires_at) * 1000)::bigint::text as expires_ms, (extract(epoch from refunded_at) * 1000)::bigint::text as refunded_ms
        from (${calls(callWhere, limit)} ${purchaseWhere ? sql`union all ${purchases(purchaseWhere, limit)}` : sql``}) billed
        order by created_at desc, case kind when 'call' then ${RANK.call} else ${RANK.purchase} end desc, id desc
        limit ${limit}`,
  );
  const items = rows.slice(0, page.limit);
  const last = items[items.length - 1];
  const lotParts = await lotPartsOf(db, items.filter((r) => r.kind === "call").map((r) => Number(r.id)));
  return {
    items: items.map((r) => billingRow(r, lotParts)),
    nextCursor: rows.length > page.limit && last ? encodeCursor({ at: last.at_micros, rank: RANK[last.kind], id: Number(last.id) }) : null,
  };
}

/** The filter's charged calls, packages bought, and what they cost together. */
export async function billingTotal(db: Db, filter: BillingFilter): Promise<{ calls: number; purchases: number; amount: string }> {
  const purchaseWhere = purchaseConditions(filter);
  const [row] = await queryRows<{ calls: string; purchases: string; amount: string }>(
    db,
    sql`select c.calls::text as calls, p.purchases::text as purchases, (c.amount + p.amount)::text as amount
        from (select count(*) as calls, coalesce(sum(${callCost}), 0) as amount from usage_records u ${operatorRefundOf}
              where ${sql.join(callConditions(filter), sql` and `)}) c,
             (select count(*) as purchases, coalesce(sum(p.price_paid), 0) as amount from unit_lots p
              where ${purchaseWhere ? sql.join(purchaseWhere, sql` and `) : sql`false`}) p`,
  );
  return { calls: Number(row?.calls ?? 0), purchases: Number(row?.purchases ?? 0), amount: formatMoney(BigInt(row?.amount ?? "0")) };
}

export function allBilling(db: Db, filter: BillingFilter): AsyncGenerator<BillingRow> {
  return everyRow((cursor) => listBilling(db, filter, { cursor, limit: 500 }));
}
