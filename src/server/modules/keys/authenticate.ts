import { and, eq, isNull, sql } from "drizzle-orm";
import { API_KEY_PATTERN } from "#shared/api-keys";
import type { Db } from "../../db/client";
import { apiKeys, users } from "../../db/schema/index";
import { sha256Hex } from "../../lib/crypto";
import { ipAllowed } from "./ip-allowlist";
import { apiKeyStatus, currentPeriodSpend, type ApiKeyRow } from "./key-view";

export type ApiKeyRefusal = "unknown" | "account_disabled" | "disabled" | "expired" | "ip_not_allowed" | "tool_not_allowed" | "spend_limit_reached";

export type UserRow = typeof users.$inferSelect;

export type ApiKeyAuthResult = { ok: true; key: ApiKeyRow; user: UserRow } | { ok: false; reason: ApiKeyRefusal };

function prepareLookup(db: Db) {
  return db
    .select({ key: apiKeys, user: users })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .where(and(eq(apiKeys.keyHash, sql.placeholder("keyHash")), isNull(apiKeys.deletedAt)))
    .limit(1)
    .prepare("api_key_by_hash");
}

const lookups = new WeakMap<Db, ReturnType<typeof prepareLookup>>();

export interface FoundApiKey {
  key: ApiKeyRow;
  user: UserRow;
}

/** What a key is found by: the hash of its secret, or null for a token that cannot be a key. */
export function apiKeyHash(rawKey: string): string | null {
  return API_KEY_PATTERN.test(rawKey) ? sha256Hex(rawKey) : null;
}

/** The live key with this hash and its owner, by one indexed query; null if none. */
export async function lookupApiKeyByHash(db: Db, keyHash: string): Promise<FoundApiKey | null> {
  let lookup = lookups.get(db);
  if (!lookup) {
    lookup = prepareLookup(db);
    lookups.set(db, lookup);
  }
  const [row] = await lookup.execute({ keyHash });
  return row ?? null;
}

/** The live key with this secret and its owner; null if none. */
export async function lookupApiKey(db: Db, rawKey: string): Promise<FoundApiKey | null> {
  const keyHash = apiKeyHash(rawKey);
  return keyHash === null ? null : lookupApiKeyByHash(db, keyHash);
}

/**
 * Why a found key may not make this call now, or null when it may. Checked in this order:
 * account_disabled (its owner, by an operator), disabled, expired, ip_not_allowed,
 * tool_not_allowed, spend_limit_reached.
 */
export function apiKeyRefusal(found: FoundApiKey, clientIp: string, toolId: string, now: Date): ApiKeyRefusal | null {
  const { key } = found;
  if (found.user.disabledAt) return "account_disabled";
  const status = apiKeyStatus(key, now);
  if (status !== "active") return status;
  if (!ipAllowed(key.ipAllowlist, clientIp)) return "ip_not_allowed";
  if (key.allowedTools.length > 0 && !key.allowedTools.includes(toolId)) return "tool_not_allowed";
  if (key.spendLimit !== null && currentPeriodSpend(key, now) >= key.spendLimit) return "spend_limit_reached";
  return null;
}

/**
 * The gateway's check of a bearer key: one indexed query (key joined with its owner), no cache,
 * so a key disabled or deleted a moment ago is refused on the next request.
 */
export async function authenticateApiKey(
  db: Db,
  rawKey: string,
  clientIp: string,
  toolId: string,
  now: Date,
): Promise<ApiKeyAuthResult> {
  const found = await lookupApiKey(db, rawKey);
  if (!found) return { ok: false, reason: "unknown" };
  const reason = apiKeyRefusal(found, clientIp, toolId, now);
  return reason ? { ok: false, reason } : { ok: true, ...found };
}
