import { and, eq, gt, isNull, lte } from "drizzle-orm";
import type { Db, Tx } from "../../db/client";
import { sessions } from "../../db/schema/index";
import { randomToken, sha256Hex } from "../../lib/crypto";
import type { SessionIdentity } from "../../lib/signed-in";

export const SESSION_TTL_SECONDS = 604_800;

export type { SessionIdentity };

export async function createSession(
  db: Db | Tx,
  input: { userId: number; ip?: string; userAgent?: string; now: Date },
): Promise<{ sessionId: number; token: string; expiresAt: Date }> {
  const token = randomToken(32);
  const expiresAt = new Date(input.now.getTime() + SESSION_TTL_SECONDS * 1000);
  const [row] = await db.insert(sessions).values({
    userId: input.userId,
    tokenHash: sha256Hex(token),
    createdAt: input.now,
    expiresAt,
    ip: input.ip,
    userAgent: input.userAgent?.slice(0, 512),
  }).returning({ id: sessions.id });
  return { sessionId: row!.id, token, expiresAt };
}

export async function findSession(db: Db, token: string, now: Date): Promise<SessionIdentity | null> {
  const [row] = await db
    .select({ sessionId: sessions.id, userId: sessions.userId })
    .from(sessions)
    .where(and(eq(sessions.tokenHash, sha256Hex(token)), isNull(sessions.revokedAt), gt(sessions.expiresAt, now)))
    .limit(1);
  return row ?? null;
}

/**
 * A new token for a live session, the old one ending: how a replayed login answer gets a token
 * without any token being stored. Null when the session has ended.
 */
export async function rotateSessionToken(db: Db, sessionId: number, now: Date): Promise<string | null> {
  const token = randomToken(32);
  const rotated = await db
    .update(sessions)
    .set({ tokenHash: sha256Hex(token) })
    .where(and(eq(sessions.id, sessionId), isNull(sessions.revokedAt), gt(sessions.expiresAt, now)))
    .returning({ id: sessions.id });
  return rotated.length === 1 ? token : null;
}

export async function revokeSession(db: Db, sessionId: number, now: Date): Promise<void> {
  await db.update(sessions).set({ revokedAt: now }).where(eq(sessions.id, sessionId));
}

/** Returns how many live sessions it ended. */
export async function revokeAllSessions(db: Db | Tx, userId: number, now: Date): Promise<number> {
  const revoked = await db
    .update(sessions)
    .set({ revokedAt: now })
    .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt), gt(sessions.expiresAt, now)))
    .returning({ id: sessions.id });
  return revoked.length;
}

/** Deletes sessions past their expiry: no request can use them, and they only keep IPs and user agents. */
export async function purgeExpiredSessions(db: Db | Tx, now: Date): Promise<void> {
  await db.delete(sessions).where(lte(sessions.expiresAt, now));
}
