import { randomBytes } from "node:crypto";
import { and, eq, gt, isNull, or } from "drizzle-orm";
import { formatMoney } from "#shared/money";
import type { RedeemResponse } from "#shared/money-api";
import type { Db } from "../../db/client";
import { redemptionCodes } from "../../db/schema/index";
import { AppError } from "../../errors";
import { recordTopUp, type TopUpOptions } from "../ledger/index";
import { generateCode, hashCode, maskedCode, normalizeCode } from "./codes";
import { recordRedeemFailure, releaseRedeemAttempt, reserveRedeemAttempt, type RedeemLimits } from "./limits";

export const MAX_CODES_PER_BATCH = 10_000;

export const REDEEM_ERRORS = {
  unknown: "redemption_code_unknown",
  used: "redemption_code_used",
  expired: "redemption_code_expired",
  void: "redemption_code_void",
} as const;

const CODE_FAILURES = new Set<string>(Object.values(REDEEM_ERRORS));

export interface CreatedCodes {
  batch: string;
  /** The codes in clear, for the operator to hand out; only their hashes are stored. */
  codes: string[];
}

export async function createCodes(
  db: Db,
  input: { amount: bigint; count: number; expiresAt: Date | null; now: Date },
): Promise<CreatedCodes> {
  if (input.amount <= 0n) throw new RangeError("the amount must be positive");
  if (!Number.isInteger(input.count) || input.count < 1 || input.count > MAX_CODES_PER_BATCH) {
    throw new RangeError(`the count must be a whole number from 1 to ${MAX_CODES_PER_BATCH}`);
  }
  const batch = `${input.now.toISOString().slice(0, 10).replace(/-/g, "")}-${randomBytes(3).toString("hex")}`;
  const codes = Array.from({ length: input.count }, generateCode);
  await db.transaction(async (tx) => {
    for (let i = 0; i < codes.length; i += 500) {
      await tx.insert(redemptionCodes).values(
        codes.slice(i, i + 500).map((code) => {
          const normalized = normalizeCode(code)!;
          return {
            codeHash: hashCode(normalized),
            suffix: normalized.slice(-4),
            amount: input.amount,
            batch,
            createdAt: input.now,
            expiresAt: input.expiresAt,
          };
        }),
      );
    }
  });
  return { batch, codes };
}

/**
 * Redeems a code for a user: the code is claimed by one conditional UPDATE (unused, not expired),
 * so of two users racing for it exactly one gets it, and the credit happens in the same transaction.
 */
export async function redeemCode(
  db: Db,
  input: { userId: number; code: string; now: Date; topUp: TopUpOptions },
): Promise<Redeemed> {
  const normalized = normalizeCode(input.code);
  if (!normalized) throw AppError.badRequest("this redemption code does not exist, check it and try again", REDEEM_ERRORS.unknown);
  const codeHash = hashCode(normalized);
  return db.transaction(async (tx) => {
    const [claimed] = await tx
      .update(redemptionCodes)
      .set({ redeemedBy: input.userId, redeemedAt: input.now })
      .where(
        and(
          eq(redemptionCodes.codeHash, codeHash),
          isNull(redemptionCodes.redeemedAt),
          isNull(redemptionCodes.voidedAt),
          or(isNull(redemptionCodes.expiresAt), gt(redemptionCodes.expiresAt, input.now)),
        ),
      )
      .returning();
    if (!claimed) {
      const [code] = await tx.select().from(redemptionCodes).where(eq(redemptionCodes.codeHash, codeHash));
      if (!code) throw AppError.badRequest("this redemption code does not exist, check it and try again", REDEEM_ERRORS.unknown);
      if (code.redeemedAt) {
        const message = code.redeemedBy === input.userId ? "you have already redeemed this code" : "this redemption code has already been used";
        throw AppError.badRequest(message, REDEEM_ERRORS.used);
      }
      if (code.voidedAt) throw AppError.badRequest("this redemption code was withdrawn by the site's operator and can no longer be redeemed", REDEEM_ERRORS.void);
      throw AppError.badRequest("this redemption code has expired", REDEEM_ERRORS.expired);
    }
    const reference = maskedCode(claimed.suffix);
    const { posted, referralBonus } = await recordTopUp(
      tx,
      {
        userId: input.userId,
        amount: claimed.amount,
        kind: "redemption",
        method: "redemption",
        reference,
        idempotencyKey: `redemption:${claimed.id}`,
        at: input.now,
      },
      input.topUp,
    );
    return { answer: { amount: formatMoney(claimed.amount), balance: formatMoney(posted.balance), reference }, credited: claimed.amount, referralBonus: referralBonus?.amount ?? null };
  });
}

/** A redemption's answer to its user, the money it credited, and the referral bonus it paid (null: none). */
export interface Redeemed {
  answer: RedeemResponse;
  credited: bigint;
  referralBonus: bigint | null;
}

/** POST /console/redeem: `redeemCode` as one attempt in the user's and the IP's failure counts (limits.ts). */
export async function redeemCodeWithinLimits(
  db: Db,
  input: { userId: number; ip: string; code: string; now: Date; topUp: TopUpOptions; limits: RedeemLimits },
): Promise<Redeemed> {
  const { userId, ip, code, now, topUp, limits } = input;
  const attempt = await reserveRedeemAttempt(db, { userId, ip, now, limits });
  let redeemed;
  try {
    redeemed = await redeemCode(db, { userId, code, now, topUp });
  } catch (error) {
    if (error instanceof AppError && CODE_FAILURES.has(error.code)) await recordRedeemFailure(db, attempt, error.code);
    else await releaseRedeemAttempt(db, attempt);
    throw error;
  }
  await releaseRedeemAttempt(db, attempt);
  return redeemed;
}
