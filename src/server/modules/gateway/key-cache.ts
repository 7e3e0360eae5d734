import { LRUCache } from "lru-cache";
import { sha256Hex } from "../../lib/crypto";
import { lookupApiKey, type FoundApiKey } from "../keys/authenticate";
import type { Db } from "../../db/client";
import type { ApiKeyChangeFollower } from "../keys/changes";

/** How long a cached key is trusted while changes from other processes may go unheard. */
export const UNHEARD_TRUST_MS = 1000;

/**
 * Authenticated keys kept in memory, so a call costs no key query. A change to a key (disable,
 * delete, new limits) evicts it: in this process at once, in the others through NOTIFY; the TTL
 * only bounds how long a lost notification could matter. The spend so far is never taken from
 * here: the charge transaction reads it under a row lock.
 */
export class ApiKeyCache implements ApiKeyChangeFollower {
  /** Expiry is checked against the caller's clock (the app's, which tests may set), not the cache's own. */
  private readonly entries: LRUCache<string, { found: FoundApiKey; cachedAt: number; expiresAt: number }>;
  private deaf = false;

  constructor(
    private readonly db: Db,
    private readonly options: { ttlMs: number; maxEntries: number } = { ttlMs: 30_000, maxEntries: 10_000 },
  ) {
    this.entries = new LRUCache({ max: options.maxEntries });
  }

  async get(rawKey: string, nowMs: number): Promise<FoundApiKey | null> {
    const hash = sha256Hex(rawKey);
    const cached = this.entries.get(hash);
    if (cached && cached.expiresAt > nowMs && (!this.deaf || nowMs - cached.cachedAt < UNHEARD_TRUST_MS)) return cached.found;
    const found = await lookupApiKey(this.db, rawKey);
    if (!found) {
      this.entries.delete(hash);
      return null;
    }
    this.entries.set(hash, { found, cachedAt: nowMs, expiresAt: nowMs + this.options.ttlMs });
    return found;
  }

  evict(keyHash: string): void {
    this.entries.delete(keyHash);
  }

  changesMayBeMissed(): void {
    this.deaf = true;
  }

  changesHeardAgain(): void {
    this.deaf = false;
    this.entries.clear();
  }
}
