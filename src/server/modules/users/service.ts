import { and, desc, eq, inArray, isNull, like, or, sql } from "drizzle-orm";
import { API_KEY_PATTERN } from "#shared/api-keys";
import { normalizePhone } from "#shared/phone";
import type { Db, Tx } from "../../db/client";
import { apiKeys, callLog, llmUsage, toolGrants, usageRecords, users } from "../../db/schema/index";
import { sha256Hex } from "../../lib/crypto";
import { revokeAllSessions } from "../auth/index";
import { announceApiKeyChange, apiKeyStatus, currentPeriodSpend, type ApiKeyRow } from "../keys/index";

export type UserRow = typeof users.$inferSelect;

/** The most users one search lists. */
export const FOUND_MAX = 50;

/**
 * How `findUsers` reads an operator's words: each way they may name users, null where they do not.
 * All null: the words name no one (`abc`), whatever the users are.
 */
export function userSearchReadings(words: string) {
  const text = words.trim();
  const masked = /^(?:tg_)?…([A-Za-z0-9_-]{4})$/.exec(text);
  return {
    phone: normalizePhone(text),
    id: /^\d{1,15}$/.test(text) ? Number(text) : null,
    /** Four or more digits, searched for anywhere in phone numbers; fewer are an id only. */
    phoneDigits: /^\d{4,11}$/.test(text) ? text : null,
    key: API_KEY_PATTERN.test(text) ? text : null,
    maskedLast4: masked ? masked[1]! : null,
  };
}

/** Whether the words could name a user at all (see userSearchReadings). */
export const namesAnyone = (readings: ReturnType<typeof userSearchReadings>): boolean => Object.values(readings).some((reading) => reading !== null);

/**
 * Users an operator's words may name: a whole phone number, a user id, a whole API key, a key as
 * the console masks it (`tg_…wxyz`, or its last four characters after `…`), or at least four
 * digits of a phone number. Oldest first, at most 50.
 */
export async function findUsers(db: Db, words: string): Promise<UserRow[]> {
  const readings = userSearchReadings(words);
  const conditions = [];
  if (readings.phone) conditions.push(eq(users.phone, readings.phone));
  if (readings.id !== null) conditions.push(eq(users.id, readings.id));
  if (readings.phoneDigits) conditions.push(like(users.phone, `%${readings.phoneDigits}%`));
  const keyOwners = await keyOwnersNamed(db, readings);
  if (keyOwners.length > 0) conditions.push(inArray(users.id, keyOwners));
  if (conditions.length === 0) return [];
  return db
    .select()
    .from(users)
    .where(or(...conditions))
    .orderBy(users.id)
    .limit(FOUND_MAX);
}

async function keyOwnersNamed(db: Db, readings: ReturnType<typeof userSearchReadings>): Promise<number[]> {
  const condition = readings.key ? eq(apiKeys.keyHash, sha256Hex(readings.key)) : readings.maskedLast4 ? eq(apiKeys.last4, readings.maskedLast4) : null;
  if (!condition) return [];
  const rows = await db.selectDistinct({ userId: apiKeys.userId }).from(apiKeys).where(condition);
  return rows.map((r) => r.userId);
}

type CallSummary = { requestId: string; toolId: string; status: string; units: number; amount: bigint; createdAt: Date };
/** A call answered with an error (refused before the tool, or failed at it), as the call log keeps it. */
type FailureSummary = { requestId: string; toolId: string; httpStatus: number; code: string; message: string | null; receivedAt: Date };

/** How many of a user's last failed calls `users show` lists. */
export const LAST_FAILURES = 5;

export interface UserDetails {
  user: UserRow;
  keys: (ApiKeyRow & { status: string; periodSpend: bigint })[];
  grants: { toolId: string; grantedAt: Date }[];
  openHolds: CallSummary[];
  lastCalls: CallSummary[];
  /** From the call log, so refusals too (lastCalls are the charged calls); a call's row arrives there just after it ends. */
  lastFailures: FailureSummary[];
}

/** Everything an operator looks at for one user: keys (never their secrets), grants, holds still open, the last calls. */
export async function userDetails(db: Db, userId: number, now: Date): Promise<UserDetails | null> {
  const [user] = await db.select().from(users).where(eq(users.id, userId));
  if (!user) return null;
  const keys = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.deletedAt)))
    .orderBy(apiKeys.id);
  const grants = await db.select({ toolId: toolGrants.toolId, grantedAt: toolGrants.grantedAt }).from(toolGrants).where(eq(toolGrants.userId, userId)).orderBy(toolGrants.toolId);
  // An LLM call's units are its tokens, as billing details say; its usage row counts the micro-units it was held and charged (decision 051),
  // and a call that failed used none, as its call log row says.
  const units = sql<number>`coalesce(${llmUsage.inputTokens} + ${llmUsage.outputTokens}, ${callLog.units}, ${usageRecords.units})`.mapWith(Number);
  const call = { requestId: usageRecords.requestId, toolId: usageRecords.toolId, status: usageRecords.status, units, amount: usageRecords.amount, createdAt: usageRecords.createdAt };
  const calls = () =>
    db
      .select(call)
      .from(usageRecords)
      .leftJoin(llmUsage, eq(llmUsage.usageId, usageRecords.id))
      .leftJoin(callLog, eq(callLog.requestId, usageRecords.requestId));
  const openHolds = await calls()
    .where(and(eq(usageRecords.userId, userId), eq(usageRecords.status, "pending")))
    .orderBy(usageRecords.createdAt);
  const lastCalls = await calls().where(eq(usageRecords.userId, userId)).orderBy(desc(usageRecords.createdAt), desc(usageRecords.id)).limit(10);
  const lastFailures = await db
    .select({
      requestId: callLog.requestId,
      toolId: callLog.toolId,
      httpStatus: callLog.httpStatus,
      code: sql<string>`coalesce(${callLog.errorCode}, ${callLog.outcome})`,
      message: callLog.errorMessage,
      receivedAt: callLog.receivedAt,
    })
    .from(callLog)
    .where(and(eq(callLog.userId, userId), sql`${callLog.httpStatus} >= 400`))
    .orderBy(desc(callLog.receivedAt), desc(callLog.id))
    .limit(LAST_FAILURES);
  return {
    user,
    keys: keys.map((key) => ({ ...key, status: apiKeyStatus(key, now), periodSpend: currentPeriodSpend(key, now) })),
    grants,
    openHolds,
    lastCalls,
    lastFailures,
  };
}

/**
 * Disables a user: no sign-in from now on, every session ended, every key refused at the gateway
 * (each process forgets its cached keys now, through the key-change notices). The ledger and
 * the balance stay as they are. False when the user was disabled already.
 */
export async function disableUser(db: Db, input: { userId: number; reason: string; now: Date }): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [changed] = await tx
      .update(users)
      .set({ disabledAt: input.now, disabledReason: input.reason })
      .where(and(eq(users.id, input.userId), isNull(users.disabledAt)))
      .returning({ id: users.id });
    if (!changed) return false;
    await revokeAllSessions(tx, input.userId, input.now);
    await announceKeysOf(tx, input.userId);
    return true;
  });
}

/** Lets a disabled user sign in and call again. False when the user was not disabled. */
export async function enableUser(db: Db, userId: number): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [changed] = await tx
      .update(users)
      .set({ disabledAt: null, disabledReason: null })
      .where(and(eq(users.id, userId), sql`${users.disabledAt} is not null`))
      .returning({ id: users.id });
    if (!changed) return false;
    await announceKeysOf(tx, userId);
    return true;
  });
}

async function announceKeysOf(db: Db | Tx, userId: number): Promise<void> {
  const keys = await db.select({ keyHash: apiKeys.keyHash }).from(apiKeys).where(eq(apiKeys.userId, userId));
  for (const { keyHash } of keys) await announceApiKeyChange(db, keyHash);
}
