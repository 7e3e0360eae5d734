import { sql } from "drizzle-orm";
import type { LedgerKind } from "#shared/money-api";
import { queryRows, type Db, type Tx } from "../../db/client";

/** The ledger works on the app's database or inside a caller's transaction. */
export type DbOrTx = Db | Tx;

export interface LedgerMove {
  userId: number;
  /** Positive micro-units; debit() records it negated. */
  amount: bigint;
  kind: LedgerKind;
  /** How the money moved, as the user sees it: redemption, operator, alipay, referral_bonus, gateway… */
  method: string;
  reference: string;
  /** Unique per user: a repeat returns the first result instead of moving money twice. */
  idempotencyKey: string;
  at: Date;
}

export interface LedgerPosted {
  ok: true;
  entryId: number;
  /** Signed: what this entry did to the balance. */
  amount: bigint;
  /** The balance right after this entry. */
  balance: bigint;
  createdAt: Date;
  /** The entry's reference (a replayed entry's may differ from the one asked for). */
  reference: string;
  /** True when the idempotency key had already been used and nothing moved now. */
  replayed: boolean;
}

export interface LedgerRefused {
  ok: false;
  reason: "insufficient_balance";
  /** The balance that was too low. */
  balance: bigint;
}

export class UnknownLedgerUserError extends Error {
  constructor(userId: number) {
    super(`user ${userId} does not exist`);
    this.name = "UnknownLedgerUserError";
  }
}

interface MoveRow {
  outcome: "posted" | "replayed" | "refused";
  id: number | string | null;
  amount: string | null;
  balance: string;
  created_at: Date | string | null;
  reference: string | null;
}

function assertPositive(move: LedgerMove): void {
  if (move.amount <= 0n) throw new RangeError(`ledger amounts are positive micro-units, got ${move.amount}`);
}

/**
 * One statement does the whole move: it returns the earlier entry when the key was used before,
 * otherwise changes the balance (a debit only while `balance >= amount`, checked by the UPDATE
 * itself under the row lock) and appends the entry with the balance the UPDATE returned.
 */
async function move(db: DbOrTx, input: LedgerMove, direction: 1n | -1n): Promise<LedgerPosted | LedgerRefused> {
  assertPositive(input);
  const delta = (input.amount * direction).toString();
  const sufficient = direction === -1n ? sql`and balance >= ${input.amount.toString()}::bigint` : sql``;
  const rows = await queryRows<MoveRow>(
    db,
    sql`
      with prior as (
        select id, amount, balance_after, created_at, reference from ledger_entries
        where user_id = ${input.userId} and idempotency_key = ${input.idempotencyKey}
      ), moved as (
        update users set balance = balance + ${delta}::bigint
        where id = ${input.userId} ${sufficient} and not exists (select 1 from prior)
        returning balance
      ), posted as (
        insert into ledger_entries (user_id, amount, balance_after, kind, method, reference, idempotency_key, created_at)
        select ${input.userId}, ${delta}::bigint, balance, ${input.kind}::ledger_kind, ${input.method}, ${input.reference},
               ${input.idempotencyKey}, ${input.at.toISOString()}::timestamptz
        from moved
        returning id, amount, balance_after, created_at, reference
      )
      select 'posted' as outcome, id, amount::text as amount, balance_after::text as balance, created_at, reference from posted
      union all
      select 'replayed', id, amount::text, balance_after::text, created_at, reference from prior
      union all
      select 'refused', null, null, balance::text, null, null from users
      where id = ${input.userId} and not exists (select 1 from posted) and not exists (select 1 from prior)`,
  );
  const row = rows[0];
  if (!row) throw new UnknownLedgerUserError(input.userId);
  if (row.outcome === "refused") return { ok: false, reason: "insufficient_balance", balance: BigInt(row.balance) };
  return {
    ok: true,
    entryId: Number(row.id),
    amount: BigInt(row.amount!),
    balance: BigInt(row.balance),
    createdAt: new Date(row.created_at!),
    reference: row.reference!,
    replayed: row.outcome === "replayed",
  };
}

/** Adds `amount` to the balance and records it. */
export async function credit(db: DbOrTx, input: LedgerMove): Promise<LedgerPosted> {
  return (await move(db, input, 1n)) as LedgerPosted;
}

/**
 * Takes `amount` from the balance and records it, or refuses when the balance is lower: the
 * refusal comes from the same UPDATE that would take the money, so concurrent debits can never
 * overdraw. A repeated key returns the first result (also when the balance has since dropped).
 */
export async function debit(db: DbOrTx, input: LedgerMove): Promise<LedgerPosted | LedgerRefused> {
  return move(db, input, -1n);
}
