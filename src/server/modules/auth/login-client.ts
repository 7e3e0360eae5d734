import { and, eq, lt } from "drizzle-orm";
import type { Tx } from "../../db/client";
import { authKnownClients } from "../../db/schema/index";

/** How long a browser that logged in to a phone keeps its own code quota for it. */
export const KNOWN_CLIENT_DAYS = 90;

export async function isKnownClient(tx: Tx, target: string, client: string, now: Date): Promise<boolean> {
  const since = new Date(now.getTime() - KNOWN_CLIENT_DAYS * 86_400_000);
  const [row] = await tx
    .select({ at: authKnownClients.lastLoginAt })
    .from(authKnownClients)
    .where(and(eq(authKnownClients.target, target), eq(authKnownClients.client, client)));
  return row !== undefined && row.at > since;
}

export async function rememberClient(tx: Tx, target: string, client: string, now: Date): Promise<void> {
  await tx
    .insert(authKnownClients)
    .values({ target, client, lastLoginAt: now })
    .onConflictDoUpdate({ target: [authKnownClients.target, authKnownClients.client], set: { lastLoginAt: now } });
}

export async function purgeKnownClients(tx: Tx, now: Date): Promise<void> {
  await tx.delete(authKnownClients).where(lt(authKnownClients.lastLoginAt, new Date(now.getTime() - KNOWN_CLIENT_DAYS * 86_400_000)));
}
