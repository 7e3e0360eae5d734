import { LRUCache } from "lru-cache";
import { lookupApiKeyByHash, type FoundApiKey, type ApiKeyChangeFollower } from "../keys/index";
import type { Clock } from "../../clock";
import type { Db } from "../../db/client";

/** How long a cached key is trusted while changes from other processes may go unheard. */
export const UNHEARD_TRUST_MS = 1000;
/** How long after a change to a key is heard the key counts as recently changed. */
export const RECENT_CHANGE_MS = 1000;

export interface CachedApiKey {
  found: FoundApiKey;
  /** The key changed (its limits, its state) less than `RECENT_CHANGE_MS` ago, as far as this process heard. */
  changedRecently: boolean;
}

/**
 * Authenticated keys kept in memory, so a call costs no key query. A change to a key (disable,
 * delete, new limits) evicts it: in this process at once, in the others through NOTIFY; the TTL
 * only bounds how long a lost notification could matter. The spend so far is never taken from
 * here: the charge transaction reads it under a row lock.
 */
export class ApiKeyCache implements ApiKeyChangeFollower {
  /** Expiry is checked against the caller's clock (the app's, which tests may set), not the cache's own. */
  private readonly entries: LRUCache<string, { found: FoundApiKey; cachedAt: number; expiresAt: number }>;
  /** When a change to each key was last heard, on the clock `get` is given. */
  private readonly changes = new LRUCache<string, number>({ max: 10_000 });
  private deaf = false;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly options: { ttlMs: number; maxEntries: number } = { ttlMs: 30_000, maxEntries: 10_000 },
  ) {
    this.entries = new LRUCache({ max: options.maxEntries });
  }

  /** The key whose secret's hash is `hash` (`apiKeyHash`): a bearer's key, or one the console names by its id. */
  async get(hash: string, nowMs: number): Promise<CachedApiKey | null> {
    const changedAt = this.changes.get(hash);
    const changedRecently = changedAt !== undefined && nowMs - changedAt < RECENT_CHANGE_MS;
    const cached = this.entries.get(hash);
    if (cached && cached.expiresAt > nowMs && (!this.deaf || nowMs - cached.cachedAt < UNHEARD_TRUST_MS)) return { found: cached.found, changedRecently };
    const found = await lookupApiKeyByHash(this.db, hash);
    if (!found) {
      this.entries.delete(hash);
      return null;
    }
    this.entries.set(hash, { found, cachedAt: nowMs, expiresAt: nowMs + this.options.ttlMs });
    return { found, changedRecently };
  }

  evict(keyHash: string): void {
    this.entries.delete(keyHash);
    this.changes.set(keyHash, this.clock.now().getTime());
  }

  changesMayBeMissed(): void {
    this.deaf = true;
  }

  changesHeardAgain(): void {
    this.deaf = false;
    this.entries.clear();
  }
}
