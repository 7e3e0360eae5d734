import { sql } from "drizzle-orm";
import { queryRows, type Db, type Tx } from "../../db/client";
import { credit, debit } from "./ledger";

/** A package as the catalog sells it (the catalog's `packages`, with its price in micro-units). */
export interface PackageTerms {
  toolId: string;
  packageId: string;
  name: string;
  units: number;
  price: bigint;
  validDays: number;
}

export interface Lot {
  id: number;
  toolId: string;
  source: "free" | "package" | "grant";
  packageId: string | null;
  label: string;
  unitsGranted: number;
  unitsLeft: number;
  pricePaid: bigint;
  effectiveAt: Date;
  expiresAt: Date;
  createdAt: Date;
  refundedAt: Date | null;
}

export type LotRow = {
  id: number | string;
  tool_id: string;
  source: Lot["source"];
  package_id: string | null;
  label: string;
  units_granted: number | string;
  units_left: number | string;
  price_paid: string;
  effective_at: Date | string;
  expires_at: Date | string;
  created_at: Date | string;
  refunded_at: Date | string | null;
};

const LOT_COLUMNS = sql`id, tool_id, source, package_id, label, units_granted, units_left, price_paid::text as price_paid, effective_at, expires_at, created_at, refunded_at`;

export const lotOf = (row: LotRow): Lot => ({
  id: Number(row.id),
  toolId: row.tool_id,
  source: row.source,
  packageId: row.package_id,
  label: row.label,
  unitsGranted: Number(row.units_granted),
  unitsLeft: Number(row.units_left),
  pricePaid: BigInt(row.price_paid),
  effectiveAt: new Date(row.effective_at),
  expiresAt: new Date(row.expires_at),
  createdAt: new Date(row.created_at),
  refundedAt: row.refunded_at === null ? null : new Date(row.refunded_at),
});

const DAY_MS = 86_400_000;

/** A package's lot, usable from `at` for its `validDays` whole days (to the millisecond). */
async function insertLot(tx: Db | Tx, input: { userId: number; terms: PackageTerms; source: "package" | "grant"; pricePaid: bigint; at: Date; origin: string }): Promise<Lot | undefined> {
  const { terms } = input;
  const [row] = await queryRows<LotRow>(
    tx,
    sql`insert into unit_lots (user_id, tool_id, source, package_id, label, units_granted, units_left, price_paid, effective_at, expires_at, created_at, origin)
        values (${input.userId}, ${terms.toolId}, ${input.source}::lot_source, ${terms.packageId}, ${terms.name}, ${terms.units}, ${terms.units},
                ${input.pricePaid.toString()}::bigint, ${input.at.toISOString()}::timestamptz,
                ${new Date(input.at.getTime() + terms.validDays * DAY_MS).toISOString()}::timestamptz, ${input.at.toISOString()}::timestamptz, ${input.origin})
        on conflict (user_id, tool_id, origin) do nothing
        returning ${LOT_COLUMNS}`,
  );
  return row && lotOf(row);
}

async function lotByOrigin(tx: Db | Tx, userId: number, toolId: string, origin: string): Promise<Lot | undefined> {
  const [row] = await queryRows<LotRow>(tx, sql`select ${LOT_COLUMNS} from unit_lots where user_id = ${userId} and tool_id = ${toolId} and origin = ${origin}`);
  return row && lotOf(row);
}

export type Purchase = { ok: true; lot: Lot; balance: bigint; replayed: boolean } | { ok: false; reason: "insufficient_balance"; balance: bigint };

/**
 * Buys a package from the balance: the debit and the package's lot commit together, once per
 * `idempotencyKey` (a repeat answers the first purchase and moves nothing).
 */
export async function buyPackage(db: Db, input: { userId: number; terms: PackageTerms; at: Date; idempotencyKey: string }): Promise<Purchase> {
  const origin = `purchase:${input.idempotencyKey}`;
  return db.transaction(async (tx) => {
    const paid = await debit(tx, {
      userId: input.userId,
      amount: input.terms.price,
      kind: "charge",
      method: "package",
      reference: `${input.terms.toolId}/${input.terms.packageId}`,
      idempotencyKey: `package:${input.idempotencyKey}`,
      at: input.at,
    });
    if (!paid.ok) return paid;
    const lot = paid.replayed
      ? await lotByOrigin(tx, input.userId, input.terms.toolId, origin)
      : await insertLot(tx, { userId: input.userId, terms: input.terms, source: "package", pricePaid: input.terms.price, at: input.at, origin });
    if (!lot) throw new Error(`the purchase ${input.idempotencyKey} was paid for a different package or has no lot`);
    return { ok: true, lot, balance: paid.balance, replayed: paid.replayed };
  });
}

/**
 * An operator's grant (`admin packages grant`) of `count` lots of a package, once per
 * `idempotencyKey` of the user: a repeat of the same grant (package and count) answers its lots and
 * gives nothing; the key given with another package or count is a `conflict` (the earlier grant's
 * lots are answered and nothing is given), so a retried or mistyped command never adds lots while
 * saying that nothing new was given.
 */
export async function grantPackage(
  db: Db,
  input: { userId: number; terms: PackageTerms; count: number; at: Date; idempotencyKey: string },
): Promise<{ lots: Lot[]; replayed: boolean; conflict: boolean }> {
  return db.transaction(async (tx) => {
    // The user's row first, then the lots: the order every writer of lots locks them in. Two grants
    // with one key wait here, so the second sees the first's lots whatever their counts.
    await queryRows(tx, sql`select id from users where id = ${input.userId} for update`);
    const prefix = `grant:${input.idempotencyKey}:`;
    // This key's lots are `grant:<key>:<n>`; a key that is this one and more (`<key>:2`) is another's.
    const earlier = (
      await queryRows<LotRow>(
        tx,
        sql`select ${LOT_COLUMNS} from unit_lots
            where user_id = ${input.userId} and source = 'grant' and starts_with(origin, ${prefix}) and substr(origin, char_length(${prefix}) + 1) ~ '^[0-9]+$'
            order by id`,
      )
    ).map(lotOf);
    if (earlier.length > 0) {
      const same = earlier.length === input.count && earlier.every((lot) => lot.toolId === input.terms.toolId && lot.packageId === input.terms.packageId);
      return { lots: earlier, replayed: true, conflict: !same };
    }
    const lots: Lot[] = [];
    for (let i = 1; i <= input.count; i++) {
      const lot = await insertLot(tx, { userId: input.userId, terms: input.terms, source: "grant", pricePaid: 0n, at: input.at, origin: `${prefix}${i}` });
      lots.push(lot!);
    }
    return { lots, replayed: false, conflict: false };
  });
}

/** An operator's refund of a package's unused units, in the ledger: its method, and its idempotency key but for the lot's id. */
export const PACKAGE_REFUND_METHOD = "package_refund";
export const LOT_REFUND_KEY_PREFIX = "lot-refund:";

export type LotRefund = { ok: true; refunded: bigint; units: number; balance: bigint } | { ok: false; reason: "unknown" | "not_bought" | "refunded" | "empty" | "held" };

/**
 * An operator's refund of a bought lot's unused units (`admin packages refund`), once: the price
 * paid pro rata to the units left (rounded down to the micro-unit), and the lot is emptied. Refused
 * while a call of the lot's user and tool holds prepaid units.
 */
export async function refundLot(db: Db, input: { lotId: number; reason: string; at: Date }): Promise<LotRefund> {
  return db.transaction(async (tx) => {
    const [row] = await queryRows<LotRow & { user_id: number | string }>(tx, sql`select ${LOT_COLUMNS}, user_id from unit_lots where id = ${input.lotId}`);
    if (!row) return { ok: false, reason: "unknown" };
    // The user's row first, then the lot: the order every writer of lots locks them in.
    await queryRows(tx, sql`select id from users where id = ${row.user_id} for update`);
    const [locked] = await queryRows<LotRow>(tx, sql`select ${LOT_COLUMNS} from unit_lots where id = ${input.lotId} for update`);
    const lot = lotOf(locked!);
    if (lot.source !== "package") return { ok: false, reason: "not_bought" };
    if (lot.refundedAt) return { ok: false, reason: "refunded" };
    // A call in flight gives back what it does not use when it ends, and a refunded lot could not be
    // drawn or refunded again: those units would be lost. New draws wait on the user's lock held here.
    // Asked before whether the lot is empty: one whose every unit a call holds is not empty for good.
    const [inFlight] = await queryRows<{ held: boolean }>(
      tx,
      sql`select exists (select from usage_records where status = 'pending' and user_id = ${row.user_id} and tool_id = ${lot.toolId} and prepaid_units > 0) as held`,
    );
    if (inFlight!.held) return { ok: false, reason: "held" };
    if (lot.unitsLeft === 0) return { ok: false, reason: "empty" };
    const refunded = (lot.pricePaid * BigInt(lot.unitsLeft)) / BigInt(lot.unitsGranted);
    await tx.execute(sql`
      with emptied as (update unit_lots set units_left = 0, refunded_at = ${input.at.toISOString()}::timestamptz where id = ${lot.id} returning id)
      insert into lot_moves (lot_id, usage_id, units, kind, created_at)
      select id, null, ${lot.unitsLeft}, 'refund', ${input.at.toISOString()}::timestamptz from emptied`);
    let balance: bigint;
    if (refunded > 0n) {
      const posted = await credit(tx, {
        userId: Number(row.user_id),
        amount: refunded,
        kind: "refund",
        method: PACKAGE_REFUND_METHOD,
        reference: `${input.reason} (package ${lot.label}, ${lot.unitsLeft} of ${lot.unitsGranted} units unused)`,
        idempotencyKey: `${LOT_REFUND_KEY_PREFIX}${lot.id}`,
        at: input.at,
      });
      balance = posted.balance;
    } else {
      const [user] = await queryRows<{ balance: string }>(tx, sql`select balance::text as balance from users where id = ${row.user_id}`);
      balance = BigInt(user!.balance);
    }
    return { ok: true, refunded, units: lot.unitsLeft, balance };
  });
}

/** A user's lots (of one tool, if given), latest expiry first. */
export async function userLots(db: Db | Tx, userId: number, options: { toolId?: string; limit?: number } = {}): Promise<Lot[]> {
  const rows = await queryRows<LotRow>(
    db,
    sql`select ${LOT_COLUMNS} from unit_lots where user_id = ${userId} ${options.toolId ? sql`and tool_id = ${options.toolId}` : sql``}
        order by expires_at desc, id desc limit ${options.limit ?? 200}`,
  );
  return rows.map(lotOf);
}
