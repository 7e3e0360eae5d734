import { sql, type SQL } from "drizzle-orm";
import { type CallDetail, type CallOutcome, type CallRow, CALL_STEPS } from "#shared/calls";
import { formatMoney } from "#shared/money";
import { queryRows, type Db } from "../../db/client";
import { OPERATOR_REFUND_KEY_PREFIX } from "../ledger/index";
import { beforeTimeId, encodeCursor, everyRow } from "../../lib/keyset";
import { callerNetwork } from "./network";

export interface CallsFilter {
  userId: number;
  from?: Date;
  to?: Date;
  toolId?: string;
  keyId?: number;
  outcome?: CallOutcome;
  status?: "2xx" | "4xx" | "5xx";
  charged?: boolean;
  slowerThanMs?: number;
}

const STATUS_RANGES = { "2xx": [200, 300], "4xx": [400, 500], "5xx": [500, 600] } as const;

function conditions(filter: CallsFilter): SQL[] {
  const where = [sql`c.user_id = ${filter.userId}`];
  if (filter.from) where.push(sql`c.received_at >= ${filter.from.toISOString()}::timestamptz`);
  if (filter.to) where.push(sql`c.received_at < ${filter.to.toISOString()}::timestamptz`);
  if (filter.toolId) where.push(sql`c.tool_id = ${filter.toolId}`);
  if (filter.keyId) where.push(sql`c.api_key_id = ${filter.keyId}`);
  if (filter.outcome) where.push(sql`c.outcome = ${filter.outcome}`);
  if (filter.status) {
    const [low, high] = STATUS_RANGES[filter.status];
    where.push(sql`c.http_status >= ${low} and c.http_status < ${high}`);
  }
  if (filter.charged !== undefined) where.push(filter.charged ? sql`c.amount > 0` : sql`c.amount = 0`);
  if (filter.slowerThanMs !== undefined) where.push(sql`c.total_us > ${filter.slowerThanMs * 1000}`);
  return where;
}

interface Row {
  id: number | string;
  at_micros: string;
  request_id: string;
  tool_id: string;
  api_key_id: number | string;
  key_name: string;
  outcome: CallOutcome;
  http_status: number;
  upstream_status: number | null;
  held: string;
  amount: string;
  units: number | string;
  prepaid_units: number | string;
  streamed: boolean;
  from_console: boolean;
  bytes_in: number | string;
  bytes_out: number | string;
  client_ip: string;
  total_us: number;
  upstream_us: number | null;
  key_checked_us: number | null;
  held_us: number | null;
  first_byte_us: number | null;
  error_code: string | null;
  error_message: string | null;
}

const COLUMNS = sql`c.id, (extract(epoch from c.received_at) * 1000000)::bigint::text as at_micros, c.request_id, c.tool_id, c.api_key_id,
  k.name as key_name, c.outcome, c.http_status, c.upstream_status, c.held::text as held, c.amount::text as amount, c.units, c.prepaid_units, c.streamed, c.from_console,
  c.bytes_in, c.bytes_out, c.client_ip, c.total_us, c.upstream_us, c.key_checked_us, c.held_us, c.first_byte_us, c.error_code, c.error_message`;

const ms = (us: number) => Math.round(us) / 1000;

/** Why a call cost nothing, in words a user can act on; null when it cost something. */
export function notChargedReason(row: { outcome: CallOutcome; amount: bigint; prepaidUnits: number; upstreamStatus: number | null; httpStatus: number }): string | null {
  if (row.amount > 0n) return null;
  if (row.prepaidUnits > 0) return "not charged: paid from free quotas or packages";
  switch (row.outcome) {
    case "served":
      // A served call the tool never answered was the gateway's own answer (an LLM tool's list of models).
      return row.upstreamStatus === null
        ? "not charged: answered by the gateway, without calling the tool"
        : "not charged: refunded after the call outlived the abandoned-call window";
    case "replayed":
      return "not charged: a retry answered with the first call's answer";
    case "tool_rejected":
      return `not charged: the tool answered ${row.upstreamStatus}`;
    case "caller_left":
      return "not charged: the caller went away before the answer";
    case "stream_cut":
      return "not charged: the tool's stream broke before it reported any units";
    case "upstream_failed":
      return row.upstreamStatus === null ? "not charged: the tool could not be reached" : `not charged: upstream ${row.upstreamStatus}`;
    case "upstream_timeout":
      return "not charged: the tool did not answer in time";
    default:
      return `not charged: refused (${row.outcome}, HTTP ${row.httpStatus})`;
  }
}

function toCallRow(r: Row): CallRow {
  const amount = BigInt(r.amount);
  const upstreamMs = r.upstream_us === null ? null : ms(r.upstream_us);
  const totalMs = ms(r.total_us);
  return {
    requestId: r.request_id,
    time: new Date(Number(BigInt(r.at_micros) / 1000n)).toISOString(),
    toolId: r.tool_id,
    keyId: Number(r.api_key_id),
    keyName: r.key_name,
    outcome: r.outcome,
    httpStatus: r.http_status,
    upstreamStatus: r.upstream_status,
    amount: formatMoney(amount),
    notChargedReason: notChargedReason({ outcome: r.outcome, amount, prepaidUnits: Number(r.prepaid_units), upstreamStatus: r.upstream_status, httpStatus: r.http_status }),
    units: Number(r.units),
    prepaidUnits: Number(r.prepaid_units),
    streamed: r.streamed,
    fromConsole: r.from_console,
    bytesIn: Number(r.bytes_in),
    bytesOut: Number(r.bytes_out),
    clientNetwork: callerNetwork(r.client_ip),
    totalMs,
    upstreamMs,
    ownMs: Math.max(0, ms(r.total_us - (r.upstream_us ?? 0))),
  };
}

/** One page, newest first, continuing after `cursor` (keyset on (received_at, id): stable under inserts). */
export async function listCalls(db: Db, filter: CallsFilter, page: { cursor?: string; limit: number }): Promise<{ items: CallRow[]; nextCursor: string | null }> {
  const where = conditions(filter);
  if (page.cursor) where.push(beforeTimeId(sql`c.received_at`, sql`c.id`, page.cursor));
  const rows = await queryRows<Row>(
    db,
    sql`select ${COLUMNS}
        from call_log c join api_keys k on k.id = c.api_key_id
        where ${sql.join(where, sql` and `)}
        order by c.received_at desc, c.id desc
        limit ${page.limit + 1}`,
  );
  const items = rows.slice(0, page.limit);
  const last = items[items.length - 1];
  return {
    items: items.map(toCallRow),
    nextCursor: rows.length > page.limit && last ? encodeCursor({ at: last.at_micros, id: Number(last.id) }) : null,
  };
}

export function allCalls(db: Db, filter: CallsFilter): AsyncGenerator<CallRow> {
  return everyRow((cursor) => listCalls(db, filter, { cursor, limit: 500 }));
}

/** One of the user's calls by its exact request id, with its timeline, hold and refund, and the error its caller got; null if none. */
export async function callDetail(db: Db, userId: number, requestId: string): Promise<CallDetail | null> {
  // An operator's refund of the call (`admin calls refund`) is its ledger entry by key, read in the same statement.
  const [row] = await queryRows<Row & { refund_amount: string | null; refund_at_ms: string | null; refund_reference: string | null }>(
    db,
    sql`select ${COLUMNS}, r.amount::text as refund_amount, (extract(epoch from r.created_at) * 1000)::bigint::text as refund_at_ms, r.reference as refund_reference
        from call_log c join api_keys k on k.id = c.api_key_id
        left join ledger_entries r on r.user_id = c.user_id and r.idempotency_key = ${OPERATOR_REFUND_KEY_PREFIX} || c.request_id
        where c.request_id = ${requestId} and c.user_id = ${userId}`,
  );
  if (!row) return null;
  const held = BigInt(row.held);
  const amount = BigInt(row.amount);
  const marks: [(typeof CALL_STEPS)[number], number | null][] = [
    ["received", 0],
    ["key_checked", row.key_checked_us],
    ["held", row.held_us],
    ["first_byte", row.first_byte_us],
    ["ended", row.total_us],
  ];
  return {
    ...toCallRow(row),
    // In the order they happened: a built-in tool is charged after it answers, an early call's upstream may answer before its hold commits.
    timeline: marks
      .filter((mark): mark is [(typeof CALL_STEPS)[number], number] => mark[1] !== null)
      .sort(([, a], [, b]) => a - b)
      .map(([step, us]) => ({ step, atMs: ms(us) })),
    held: formatMoney(held),
    refunded: formatMoney(held > amount ? held - amount : 0n),
    operatorRefund:
      row.refund_amount === null
        ? null
        : { amount: formatMoney(BigInt(row.refund_amount)), time: new Date(Number(row.refund_at_ms)).toISOString(), reference: row.refund_reference! },
    error: row.error_code === null ? null : { code: row.error_code, message: row.error_message ?? "" },
  };
}
