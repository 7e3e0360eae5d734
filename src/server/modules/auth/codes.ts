import { randomInt } from "node:crypto";
import { and, eq, gt, isNull, lt, sql } from "drizzle-orm";
import { AUTH_ERROR_CODES, INVALID_PHONE_MESSAGE } from "#shared/auth";
import { CODE_LENGTH, normalizePhone } from "#shared/phone";
import { AppError } from "../../errors";
import type { Tx } from "../../db/client";
import { authVerificationCodes } from "../../db/schema/index";
import { equalHex, hmacHex } from "../../lib/crypto";

export const LOGIN_PURPOSE = "login";

/** A stable, secret-keyed name for a phone number: rows about numbers that never signed up do not hold the number. */
export function phoneKey(secret: string, phone: string): string {
  return hmacHex(secret, `phone:${phone}`);
}

/** The phone of a request as the server reads it, and its key; a phone that is not a mainland mobile is a 400. */
export function requestPhone(secret: string, telephone: string): { phone: string; target: string } {
  const phone = normalizePhone(telephone);
  if (!phone) throw AppError.badRequest(INVALID_PHONE_MESSAGE, AUTH_ERROR_CODES.invalidPhone);
  return { phone, target: phoneKey(secret, phone) };
}

export function generateCode(): string {
  return String(randomInt(0, 10 ** CODE_LENGTH)).padStart(CODE_LENGTH, "0");
}

/** Bound to the target and purpose, so a leaked table row cannot be replayed for another number. */
export function codeHmac(secret: string, target: string, purpose: string, code: string): string {
  return hmacHex(secret, `code:${purpose}:${target}:${code}`);
}

/** Stores the new code for (target, purpose, client), replacing that browser's earlier one: only its latest counts. */
export async function storeCode(tx: Tx, row: { target: string; purpose: string; client: string; codeHmac: string; now: Date; ttlSeconds: number }): Promise<void> {
  const values = {
    target: row.target,
    purpose: row.purpose,
    client: row.client,
    codeHmac: row.codeHmac,
    createdAt: row.now,
    expiresAt: new Date(row.now.getTime() + row.ttlSeconds * 1000),
    attempts: 0,
    consumedAt: null,
  };
  await tx
    .insert(authVerificationCodes)
    .values(values)
    .onConflictDoUpdate({ target: [authVerificationCodes.target, authVerificationCodes.purpose, authVerificationCodes.client], set: values });
}

/** Takes back a code whose SMS never went out. */
export async function withdrawCode(tx: Tx, code: { target: string; purpose: string; client: string; hmac: string }): Promise<void> {
  await tx
    .delete(authVerificationCodes)
    .where(
      and(
        eq(authVerificationCodes.target, code.target),
        eq(authVerificationCodes.purpose, code.purpose),
        eq(authVerificationCodes.client, code.client),
        eq(authVerificationCodes.codeHmac, code.hmac),
      ),
    );
}

export type CodeCheck = "accepted" | "mismatch" | "no_code" | "expired" | "used" | "exhausted";

/**
 * Checks `code` against the live one the browser `client` asked for and, if it is right, consumes it in the same UPDATE that
 * re-checks every condition, so two concurrent logins with one code cannot both succeed. The
 * HMACs are compared in constant time first; a mismatch on a live code costs it one attempt.
 */
export async function checkAndConsumeCode(
  tx: Tx,
  input: { secret: string; target: string; purpose: string; client: string; code: string; now: Date; maxAttempts: number },
): Promise<CodeCheck> {
  const where = and(
    eq(authVerificationCodes.target, input.target),
    eq(authVerificationCodes.purpose, input.purpose),
    eq(authVerificationCodes.client, input.client),
  );
  const [row] = await tx.select().from(authVerificationCodes).where(where);
  if (!row) return "no_code";
  const submitted = codeHmac(input.secret, input.target, input.purpose, input.code);
  const matches = equalHex(row.codeHmac, submitted);
  // Why a code no longer takes any guess; null while it is live.
  const dead = row.consumedAt !== null ? "used" : row.attempts >= input.maxAttempts ? "exhausted" : row.expiresAt <= input.now ? "expired" : null;
  if (!matches) {
    // A wrong code against a dead one guesses nothing: it is answered as wrong, not counted as a guess.
    if (dead) return dead;
    await tx
      .update(authVerificationCodes)
      .set({ attempts: sql`${authVerificationCodes.attempts} + 1` })
      .where(and(where, eq(authVerificationCodes.codeHmac, row.codeHmac)));
    return "mismatch";
  }
  if (dead) return dead;
  const consumed = await tx
    .update(authVerificationCodes)
    .set({ consumedAt: input.now })
    .where(
      and(
        where,
        eq(authVerificationCodes.codeHmac, submitted),
        isNull(authVerificationCodes.consumedAt),
        gt(authVerificationCodes.expiresAt, input.now),
        lt(authVerificationCodes.attempts, input.maxAttempts),
      ),
    )
    .returning({ target: authVerificationCodes.target });
  return consumed.length === 1 ? "accepted" : "used";
}

export async function purgeCodes(tx: Tx, expiredBefore: Date): Promise<void> {
  await tx.delete(authVerificationCodes).where(lt(authVerificationCodes.expiresAt, expiredBefore));
}
