import { preparedRows, type Db, type PreparedStatement } from "../../db/client";
import { arrayLiteral } from "../../db/array-literal";
import { isoTimestamp } from "../../db/iso-timestamp";
import type { LotSource } from "../../db/schema/index";

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
  /** For a tool with a free quota or packages: its units are drawn from the user's lots first. */
  prepaid?: PrepaidTerms;
}

/** How a call of a tool with a free quota or packages is charged; `amount` is then what it costs if no lot pays. */
export interface PrepaidTerms {
  /** Micro-units a unit costs from the balance. */
  price: bigint;
  /** The tool's free quota for the period holding the call (0: none), usable from `freeFrom` until `freeUntil`. */
  freeUnits: number;
  freeFrom: Date;
  freeUntil: Date;
  /** Refuse the call (prepaid_exhausted) rather than charge the balance for what the lots do not cover. */
  stopWhenOut: boolean;
}

export type ChargeRefusal = "insufficient_balance" | "spend_limit_reached" | "prepaid_exhausted";

/** Units a call drew from lots of one source; a call's draws are listed in the order they were drawn. */
export interface PrepaidDraw {
  source: LotSource;
  units: number;
}

/**
 * For a call of a tool with plans: `prepaidUnits` of its units were drawn from lots (`prepaidDraws`
 * says from which sources), and `prepaidLeft` units are left in them.
 */
type Prepaid = { prepaidUnits?: number; prepaidLeft?: number; prepaidDraws?: PrepaidDraw[] };

export type ChargeOutcome = ({ ok: true; usageId: number; balance: bigint } & Prepaid) | ({ ok: false; reason: ChargeRefusal } & Pick<Prepaid, "prepaidLeft">);

export interface CompletionItem {
  usageId: number;
  httpStatus: number;
  latencyMs: number;
  at: Date;
}

/** A batch of flat-priced calls' charge; the charge bench sends it too (`bench:charge --batch`). */
export const CHARGE_CALLS: PreparedStatement = {
  name: "charge_calls",
  text: `select o_outcome, o_usage_id, o_balance_after::text as o_balance_after
           from charge_calls($1::bigint[], $2::bigint[], $3::text[], $4::bigint[], $5::bigint[], $6::text[],
                             $7::timestamptz[], $8::int[], $9::int[], $10::timestamptz[])`,
};
/**
 * What a lone call is charged with, whatever its tool's pricing: $11–$15 are a tool with plans'
 * terms (null price: a flat-priced tool). The gateway bench sends it from a plain client too, for
 * the floor of a metered call.
 */
export const CHARGE_CALL: PreparedStatement = {
  name: "charge_call",
  text: `select o_outcome, o_usage_id, o_balance_after::text as o_balance_after, o_prepaid_units, o_prepaid_left, o_prepaid_draws
           from charge_call($1::bigint, $2::bigint, $3::text, $4::bigint, $5::bigint, $6::text, $7::timestamptz, $8::int, $9::int,
                            $10::timestamptz, $11::bigint, $12::bigint, $13::timestamptz, $14::timestamptz, $15::boolean)`,
};
const COMPLETE_CALLS: PreparedStatement = {
  name: "complete_calls",
  text: `update usage_records set status = 'succeeded', http_status = d.http_status, latency_ms = d.latency_ms, completed_at = d.at
           from unnest($1::bigint[], $2::int[], $3::int[], $4::timestamptz[]) as d(id, http_status, latency_ms, at)
          where usage_records.id = d.id and usage_records.status = 'pending'
      returning usage_records.id`,
};

/** A batch of calls of tools with plans; the charge bench sends it too (`bench:charge --tool plans --batch`). */
export const CHARGE_CALLS_PREPAID: PreparedStatement = {
  name: "charge_calls_prepaid",
  text: `select o_outcome, o_usage_id, o_balance_after::text as o_balance_after, o_prepaid_units, o_prepaid_left, o_prepaid_draws
           from charge_calls_prepaid($1::bigint[], $2::bigint[], $3::text[], $4::bigint[], $5::bigint[], $6::text[], $7::timestamptz[], $8::int[],
                                     $9::int[], $10::timestamptz[], $11::bigint[], $12::timestamptz[], $13::timestamptz[], $14::boolean[])`,
};

type ChargeRow = {
  o_outcome: "ok" | ChargeRefusal;
  o_usage_id: number | string | null;
  o_balance_after: string | null;
  o_prepaid_units?: number | string | null;
  o_prepaid_left?: number | string | null;
  /** `source:units` pairs in draw order, joined by commas ("" when no lot paid). */
  o_prepaid_draws?: string | null;
};

const chargeOutcome = (row: ChargeRow): ChargeOutcome =>
  row.o_outcome === "ok" ? { ok: true, usageId: Number(row.o_usage_id), balance: BigInt(row.o_balance_after!) } : { ok: false, reason: row.o_outcome };

const drawsOf = (text: string): PrepaidDraw[] =>
  text === ""
    ? []
    : text.split(",").map((pair) => {
        const [source, units] = pair.split(":");
        return { source: source as LotSource, units: Number(units) };
      });

const prepaidOutcome = (row: ChargeRow): ChargeOutcome => ({
  ...chargeOutcome(row),
  ...(row.o_outcome === "ok" && { prepaidUnits: Number(row.o_prepaid_units), prepaidDraws: drawsOf(row.o_prepaid_draws ?? "") }),
  prepaidLeft: Number(row.o_prepaid_left),
});

/**
 * Charges a batch of calls with one statement, `charge_calls` (src/server/db/functions/): it
 * locks the users and keys involved in id order, admits each call in arrival order while the locked
 * balance covers it and its key's spend limit allows it, and writes balances, ledger entries, key
 * spend and usage records. A refused call writes nothing. One statement is one round trip: the
 * row locks are held only while it runs, and on PGlite's thread it runs without waiting on the
 * event loop (docs/decisions/012). A batch of one, what every call is when calls arrive one at a
 * time, goes to `charge_call`: the same rules without the arrays (docs/decisions/028).
 */
export async function chargeBatch(db: Db, items: ChargeItem[]): Promise<ChargeOutcome[]> {
  if (items.length === 1) return [await chargeOne(db, items[0]!)];
  if (items.some((i) => i.prepaid)) return chargeMixed(db, items);
  const rows = await preparedRows<ChargeRow>(db, CHARGE_CALLS, [
    arrayLiteral(items.map((i) => i.userId)),
    arrayLiteral(items.map((i) => i.apiKeyId)),
    arrayLiteral(items.map((i) => i.toolId)),
    arrayLiteral(items.map((i) => i.units)),
    arrayLiteral(items.map((i) => i.amount.toString())),
    arrayLiteral(items.map((i) => i.requestId)),
    arrayLiteral(items.map((i) => isoTimestamp(i.at))),
    arrayLiteral(items.map((i) => i.ended?.httpStatus ?? null)),
    arrayLiteral(items.map((i) => i.ended?.latencyMs ?? null)),
    arrayLiteral(items.map((i) => (i.ended ? isoTimestamp(i.ended.at) : null))),
  ]);
  if (rows.length !== items.length) throw new Error(`charge_calls answered ${rows.length} rows for ${items.length} calls`);
  return rows.map(chargeOutcome);
}

/**
 * A batch with calls of tools that have plans: those go to `charge_calls_prepaid` (or
 * `charge_call` for one), beside the others' batch.
 */
async function chargeMixed(db: Db, items: ChargeItem[]): Promise<ChargeOutcome[]> {
  const plain = items.filter((i) => !i.prepaid);
  const withPlans = items.filter((i) => i.prepaid);
  const [plainOutcomes, prepaidOutcomes] = await Promise.all([
    plain.length > 0 ? chargeBatch(db, plain) : Promise.resolve([]),
    withPlans.length === 1 ? chargeOne(db, withPlans[0]!).then((o) => [o]) : chargePrepaidBatch(db, withPlans),
  ]);
  let p = 0;
  let q = 0;
  return items.map((i) => (i.prepaid ? prepaidOutcomes[q++]! : plainOutcomes[p++]!));
}

async function chargePrepaidBatch(db: Db, items: ChargeItem[]): Promise<ChargeOutcome[]> {
  const terms = (i: ChargeItem) => i.prepaid!;
  const rows = await preparedRows<ChargeRow>(db, CHARGE_CALLS_PREPAID, [
    arrayLiteral(items.map((i) => i.userId)),
    arrayLiteral(items.map((i) => i.apiKeyId)),
    arrayLiteral(items.map((i) => i.toolId)),
    arrayLiteral(items.map((i) => i.units)),
    arrayLiteral(items.map((i) => terms(i).price.toString())),
    arrayLiteral(items.map((i) => i.requestId)),
    arrayLiteral(items.map((i) => isoTimestamp(i.at))),
    arrayLiteral(items.map((i) => i.ended?.httpStatus ?? null)),
    arrayLiteral(items.map((i) => i.ended?.latencyMs ?? null)),
    arrayLiteral(items.map((i) => (i.ended ? isoTimestamp(i.ended.at) : null))),
    arrayLiteral(items.map((i) => terms(i).freeUnits)),
    arrayLiteral(items.map((i) => isoTimestamp(terms(i).freeFrom))),
    arrayLiteral(items.map((i) => isoTimestamp(terms(i).freeUntil))),
    arrayLiteral(items.map((i) => (terms(i).stopWhenOut ? "t" : "f"))),
  ]);
  if (rows.length !== items.length) throw new Error(`charge_calls_prepaid answered ${rows.length} rows for ${items.length} calls`);
  return rows.map(prepaidOutcome);
}

async function chargeOne(db: Db, item: ChargeItem): Promise<ChargeOutcome> {
  const terms = item.prepaid;
  const [row] = await preparedRows<ChargeRow>(db, CHARGE_CALL, [
    item.userId,
    item.apiKeyId,
    item.toolId,
    item.units,
    item.amount.toString(),
    item.requestId,
    isoTimestamp(item.at),
    item.ended?.httpStatus ?? null,
    item.ended?.latencyMs ?? null,
    item.ended ? isoTimestamp(item.ended.at) : null,
    terms?.price.toString() ?? null,
    terms?.freeUnits ?? 0,
    terms ? isoTimestamp(terms.freeFrom) : null,
    terms ? isoTimestamp(terms.freeUntil) : null,
    terms?.stopWhenOut ?? false,
  ]);
  if (!row) throw new Error("charge_call answered no row");
  return terms ? prepaidOutcome(row) : chargeOutcome(row);
}

/**
 * Records how successful calls ended; money is not touched. Each answer says whether the call was
 * still pending; false: the abandoned-call sweep had refunded it, so it was served free.
 */
export async function completeBatch(db: Db, items: CompletionItem[]): Promise<boolean[]> {
  const completed = await preparedRows<{ id: number | string }>(db, COMPLETE_CALLS, [
    arrayLiteral(items.map((i) => i.usageId)),
    arrayLiteral(items.map((i) => i.httpStatus)),
    arrayLiteral(items.map((i) => i.latencyMs)),
    arrayLiteral(items.map((i) => isoTimestamp(i.at))),
  ]);
  const pending = new Set(completed.map((row) => Number(row.id)));
  return items.map((item) => pending.has(item.usageId));
}
