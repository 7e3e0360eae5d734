import { and, asc, count, eq, isNull, sql } from "drizzle-orm";
import type { z } from "zod";
import {
  API_KEY_MESSAGES,
  API_KEY_PREFIX,
  expiryProblem,
  type ExpiryProblem,
  type createApiKeyBody,
  type updateApiKeyBody,
} from "#shared/api-keys";
import { ERROR_CODES } from "#shared/errors";
import { parseMoney } from "#shared/money";
import { spendPeriodStart, type SpendLimitPeriod } from "#shared/spend-period";
import type { Db, Tx } from "../../db/client";
import { apiKeys, users } from "../../db/schema/index";
import { AppError } from "../../errors";
import { announceApiKeyChange } from "./changes";
import { randomToken, sha256Hex } from "../../lib/crypto";
import type { ApiKeyRow } from "./key-view";

export const API_KEY_LIMIT_REACHED = "api_key_limit_reached";

const EXPIRY_MESSAGES: Record<ExpiryProblem, string> = {
  malformed: API_KEY_MESSAGES.expiryMalformed,
  past: API_KEY_MESSAGES.expiryPast,
  tooLate: API_KEY_MESSAGES.expiryTooLate,
};

type CreateInput = z.output<typeof createApiKeyBody>;
type UpdateInput = z.output<typeof updateApiKeyBody>;

/** `tg_` + 32 random bytes, base64url. */
export function generateApiKey(): string {
  return `${API_KEY_PREFIX}${randomToken(32)}`;
}

function futureExpiry(iso: string | null | undefined, now: Date): Date | null | undefined {
  if (iso === undefined || iso === null) return iso;
  const problem = expiryProblem(iso, now);
  if (problem) throw AppError.badRequest(`expiresAt: ${EXPIRY_MESSAGES[problem]}`, ERROR_CODES.validation);
  return new Date(iso);
}

/**
 * A key limited to tools that do not exist can call nothing, so ids the catalog lacks are refused,
 * by name. Ids the key already holds stay accepted, so a key whose tool the operator since removed
 * can still be edited as the console sends it (every field at once).
 */
function refuseUnknownTools(tools: readonly string[] | undefined, isTool: (id: string) => boolean, held: readonly string[] = []): void {
  const unknown = (tools ?? []).filter((id) => !isTool(id) && !held.includes(id));
  if (unknown.length === 0) return;
  const message = unknown.length === 1 ? `no tool has the id ${unknown[0]}` : `no tools have the ids ${unknown.join(", ")}`;
  throw AppError.badRequest(`allowedTools: ${message}`, ERROR_CODES.validation);
}

/**
 * A period is what a spend limit counts over, so a key without a limit counts over its lifetime:
 * the console's form sends the period it shows even when the limit is left empty, and a key
 * without a limit that answered "daily, resets at midnight" would promise a reset of nothing.
 */
function periodFor(spendLimit: string | bigint | null, period: SpendLimitPeriod): SpendLimitPeriod {
  return spendLimit === null ? "lifetime" : period;
}

function spendLimitMicros(value: string | null | undefined): bigint | null | undefined {
  return value === undefined || value === null ? value : parseMoney(value);
}

const live = (userId: number) => and(eq(apiKeys.userId, userId), isNull(apiKeys.deletedAt));

export async function listApiKeys(db: Db, userId: number): Promise<ApiKeyRow[]> {
  return db.select().from(apiKeys).where(live(userId)).orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
}

/** Creates a key and returns it with its secret, which exists nowhere else after this call. */
export async function createApiKey(
  db: Db,
  input: { userId: number; body: CreateInput; now: Date; maxPerUser: number; isTool: (id: string) => boolean },
): Promise<{ row: ApiKeyRow; secret: string }> {
  const { userId, body, now } = input;
  const expiresAt = futureExpiry(body.expiresAt, now) ?? null;
  refuseUnknownTools(body.allowedTools, input.isTool);
  const period = periodFor(body.spendLimit ?? null, body.spendLimitPeriod ?? "lifetime");
  const secret = generateApiKey();
  const row = await db.transaction(async (tx) => {
    // Locking the owner serialises concurrent creations, so the cap holds under races.
    await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for("update");
    const [existing] = await tx.select({ n: count() }).from(apiKeys).where(live(userId));
    if ((existing?.n ?? 0) >= input.maxPerUser) {
      throw AppError.badRequest(
        `you already have ${input.maxPerUser} API keys, the most allowed: delete one you no longer use first`,
        API_KEY_LIMIT_REACHED,
      );
    }
    const [created] = await tx
      .insert(apiKeys)
      .values({
        userId,
        name: body.name,
        keyHash: sha256Hex(secret),
        prefix: API_KEY_PREFIX,
        last4: secret.slice(-4),
        createdAt: now,
        expiresAt,
        spendLimit: spendLimitMicros(body.spendLimit) ?? null,
        spendLimitPeriod: period,
        periodStart: spendPeriodStart(period, now),
        allowedTools: body.allowedTools ?? [],
        ipAllowlist: body.ipAllowlist ?? [],
        whenPrepaidRunsOut: body.whenPrepaidRunsOut ?? "balance",
      })
      .returning();
    return created!;
  });
  return { row, secret };
}

/**
 * A new secret for a live key, the old one ending at once everywhere: how a replayed creation
 * answer gets a secret without any secret being stored. Null when the key is gone.
 */
export async function rotateApiKeySecret(db: Db, id: number): Promise<{ row: ApiKeyRow; secret: string } | null> {
  const secret = generateApiKey();
  const [old] = await db.select({ keyHash: apiKeys.keyHash }).from(apiKeys).where(and(eq(apiKeys.id, id), isNull(apiKeys.deletedAt)));
  if (!old) return null;
  const [row] = await db
    .update(apiKeys)
    .set({ keyHash: sha256Hex(secret), last4: secret.slice(-4) })
    .where(and(eq(apiKeys.id, id), eq(apiKeys.keyHash, old.keyHash), isNull(apiKeys.deletedAt)))
    .returning();
  if (!row) return null;
  await announceApiKeyChange(db, old.keyHash);
  return { row, secret };
}

/** Changes only the fields given; another user's key, or a deleted one, is not found. */
export async function updateApiKey(
  db: Db,
  input: { userId: number; id: number; body: UpdateInput; now: Date; isTool: (id: string) => boolean },
): Promise<ApiKeyRow> {
  const { body, now } = input;
  const changes: Partial<typeof apiKeys.$inferInsert> = {};
  if (body.name !== undefined) changes.name = body.name;
  if (body.enabled !== undefined) changes.disabledAt = body.enabled ? null : now;
  if (body.expiresAt !== undefined) changes.expiresAt = futureExpiry(body.expiresAt, now);
  if (body.spendLimit !== undefined) changes.spendLimit = spendLimitMicros(body.spendLimit);
  if (body.allowedTools !== undefined) changes.allowedTools = body.allowedTools;
  if (body.ipAllowlist !== undefined) changes.ipAllowlist = body.ipAllowlist;
  if (body.whenPrepaidRunsOut !== undefined) changes.whenPrepaidRunsOut = body.whenPrepaidRunsOut;
  const where = and(eq(apiKeys.id, input.id), live(input.userId));
  const row = await db.transaction(async (tx) => {
    if (body.allowedTools?.some((id) => !input.isTool(id))) {
      const [held] = await tx.select({ allowedTools: apiKeys.allowedTools }).from(apiKeys).where(where);
      refuseUnknownTools(body.allowedTools, input.isTool, held?.allowedTools);
    }
    if (body.spendLimitPeriod !== undefined || body.spendLimit === null) {
      await changeSpendLimitPeriod(tx, { ...input, period: body.spendLimitPeriod, spendLimit: body.spendLimit });
    }
    const [changed] =
      Object.keys(changes).length === 0
        ? await tx.select().from(apiKeys).where(where)
        : await tx.update(apiKeys).set(changes).where(where).returning();
    return changed;
  });
  if (!row) throw AppError.notFound();
  await announceApiKeyChange(db, row.keyHash);
  return row;
}

/**
 * A new period counts what the key already spent in it, from its usage rows, under the key's row
 * lock (which charge_calls also takes), so switching to a daily limit mid-day does not forget the
 * morning.
 */
async function changeSpendLimitPeriod(
  tx: Tx,
  input: { userId: number; id: number; period: SpendLimitPeriod | undefined; spendLimit: string | null | undefined; now: Date },
): Promise<void> {
  const { id, now } = input;
  const [key] = await tx
    .select({ userId: apiKeys.userId, period: apiKeys.spendLimitPeriod, spendLimit: apiKeys.spendLimit })
    .from(apiKeys)
    .where(and(eq(apiKeys.id, id), live(input.userId)))
    .for("update");
  if (!key) return;
  const period = periodFor(input.spendLimit === undefined ? key.spendLimit : input.spendLimit, input.period ?? key.period);
  if (key.period === period) return;
  const start = spendPeriodStart(period, now);
  const spentSince = start
    ? sql`(select coalesce(sum(amount), 0) from usage_records
           where user_id = ${key.userId} and api_key_id = ${id} and created_at >= ${start.toISOString()}::timestamptz)`
    : sql`0`;
  await tx
    .update(apiKeys)
    .set({ spendLimitPeriod: period, periodStart: start, periodSpent: sql`${spentSince}` })
    .where(eq(apiKeys.id, id));
}

export async function deleteApiKey(db: Db, input: { userId: number; id: number; now: Date }): Promise<void> {
  const [row] = await db
    .update(apiKeys)
    .set({ deletedAt: input.now })
    .where(and(eq(apiKeys.id, input.id), live(input.userId)))
    .returning({ id: apiKeys.id, keyHash: apiKeys.keyHash });
  if (!row) throw AppError.notFound();
  await announceApiKeyChange(db, row.keyHash);
}

/** The hash of the secret of one of the user's live keys (what the gateway finds a key by), or null if the user has no such key. */
export async function ownKeyHash(db: Db, input: { userId: number; id: number }): Promise<string | null> {
  const [row] = await db
    .select({ keyHash: apiKeys.keyHash })
    .from(apiKeys)
    .where(and(eq(apiKeys.id, input.id), eq(apiKeys.userId, input.userId), isNull(apiKeys.deletedAt)));
  return row?.keyHash ?? null;
}
