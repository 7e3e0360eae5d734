import { EventEmitter } from "node:events";
import { sql } from "drizzle-orm";
import type { Db, Tx } from "../../db/client";

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
