import { and, desc, eq, gt, isNotNull, isNull, lte, or, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { redemptionCodes } from "../../db/schema/index";
import { hashCode, normalizeCode } from "./codes";

export const CODE_STATES = ["unused", "redeemed", "void", "expired"] as const;
export type CodeState = (typeof CODE_STATES)[number];
export type CodeRow = typeof redemptionCodes.$inferSelect;

/** A code's state now: redeemed and void are final; an unused code past its expiry is expired. */
export function codeState(code: CodeRow, now: Date): CodeState {
  if (code.redeemedAt) return "redeemed";
  if (code.voidedAt) return "void";
  if (code.expiresAt && code.expiresAt <= now) return "expired";
  return "unused";
}

function stateCondition(state: CodeState, now: Date): SQL {
  switch (state) {
    case "redeemed":
      return isNotNull(redemptionCodes.redeemedAt);
    case "void":
      return and(isNull(redemptionCodes.redeemedAt), isNotNull(redemptionCodes.voidedAt))!;
    case "expired":
      return and(isNull(redemptionCodes.redeemedAt), isNull(redemptionCodes.voidedAt), lte(redemptionCodes.expiresAt, now))!;
    case "unused":
      return and(isNull(redemptionCodes.redeemedAt), isNull(redemptionCodes.voidedAt), or(isNull(redemptionCodes.expiresAt), gt(redemptionCodes.expiresAt, now)))!;
  }
}

/** Codes newest first, of one batch and one state when given. */
export async function listCodes(db: Db, filter: { batch?: string; state?: CodeState; now: Date; limit: number }): Promise<CodeRow[]> {
  const conditions = [filter.batch === undefined ? undefined : eq(redemptionCodes.batch, filter.batch), filter.state && stateCondition(filter.state, filter.now)];
  return db
    .select()
    .from(redemptionCodes)
    .where(and(...conditions))
    .orderBy(desc(redemptionCodes.createdAt), desc(redemptionCodes.id))
    .limit(filter.limit);
}

/** Whether any code, in any state, belongs to `batch`: a batch no code has is a mistyped name, not an empty batch. */
export async function batchExists(db: Db, batch: string): Promise<boolean> {
  const [row] = await db.select({ id: redemptionCodes.id }).from(redemptionCodes).where(eq(redemptionCodes.batch, batch)).limit(1);
  return row !== undefined;
}

export type VoidResult = { voided: number } | { voided: 0; refused: "unknown" | CodeState };

/**
 * Voids one code (named by the code itself) or every code of a batch that nobody has redeemed
 * yet, in one conditional UPDATE: a redemption racing it either commits first (the code stays
 * redeemed) or finds the code void. A lone code that cannot be voided says why.
 */
export async function voidCodes(db: Db, target: { code: string } | { batch: string }, now: Date): Promise<VoidResult> {
  const normalized = "code" in target ? normalizeCode(target.code) : null;
  if ("code" in target && !normalized) return { voided: 0, refused: "unknown" };
  const which = normalized ? eq(redemptionCodes.codeHash, hashCode(normalized)) : eq(redemptionCodes.batch, (target as { batch: string }).batch);
  const voided = await db
    .update(redemptionCodes)
    .set({ voidedAt: now })
    .where(and(which, isNull(redemptionCodes.redeemedAt), isNull(redemptionCodes.voidedAt)))
    .returning({ id: redemptionCodes.id });
  if (voided.length > 0 || !normalized) return { voided: voided.length };
  const [code] = await db.select().from(redemptionCodes).where(which);
  return { voided: 0, refused: code ? codeState(code, now) : "unknown" };
}
