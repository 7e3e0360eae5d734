import { EventEmitter } from "node:events";
import { sql } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import type { Database, Db, Tx } from "../../db/client";

/** PostgreSQL channel on which a changed key's hash is announced to every server process. */
export const API_KEY_CHANNEL = "api_key_changed";

const local = new EventEmitter();
local.setMaxListeners(0);

/**
 * Tells every cache of authenticated keys to forget this one: this process synchronously (so the
 * console's answer never races the gateway), the others through NOTIFY when the change commits.
 */
export async function announceApiKeyChange(db: Db | Tx, keyHash: string): Promise<void> {
  local.emit("changed", keyHash);
  await db.execute(sql`select pg_notify(${API_KEY_CHANNEL}, ${keyHash})`);
}

export function onLocalApiKeyChange(listener: (keyHash: string) => void): () => void {
  local.on("changed", listener);
  return () => local.off("changed", listener);
}

/** A cache of keys that must hear of every change, and of the times it might not. */
export interface ApiKeyChangeFollower {
  evict(keyHash: string): void;
  /** Changes from other processes may now go unheard: trust cached keys briefly. */
  changesMayBeMissed(): void;
  /** Heard again, but some changes may have been missed meanwhile: forget every cached key. */
  changesHeardAgain(): void;
}

/** Feeds every key change, from this process and (on PostgreSQL) the others, to a cache; resolves to a stop. */
export async function followApiKeyChanges(database: Database, log: FastifyBaseLogger, follower: ApiKeyChangeFollower): Promise<() => Promise<void>> {
  const stopLocal = onLocalApiKeyChange((hash) => follower.evict(hash));
  const stopRemote = await database.listen?.(API_KEY_CHANNEL, {
    onMessage: (hash) => follower.evict(hash),
    onDown(error) {
      follower.changesMayBeMissed();
      log.error({ err: error }, "lost the key-change listener: cached API keys are trusted for 1 s until it is back");
    },
    onRetryFailed(error, attempt, nextDelayMs) {
      log.warn({ err: error, attempt, nextDelayMs }, `key-change listener: reconnect attempt ${attempt} failed, next in ${nextDelayMs} ms`);
    },
    onUp() {
      follower.changesHeardAgain();
      log.info("key-change listener back: cached API keys flushed");
    },
  });
  return async () => {
    stopLocal();
    await stopRemote?.();
  };
}
