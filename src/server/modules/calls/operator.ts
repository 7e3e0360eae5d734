import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { callLog } from "../../db/schema/index";

export type CallLogEntry = typeof callLog.$inferSelect;

/** A call's row as operators see it: the whole client address and the start of a failed upstream's answer. */
export async function callLogEntry(db: Db, requestId: string): Promise<CallLogEntry | null> {
  const [row] = await db.select().from(callLog).where(eq(callLog.requestId, requestId));
  return row ?? null;
}
