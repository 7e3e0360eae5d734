import { and, desc, eq, lt } from "drizzle-orm";
import { beijingIso } from "#shared/beijing-time";
import { formatMoney } from "#shared/money";
import { TRY_HISTORY_SIZE, TRY_KEPT_BODY_BYTES, type KeptTry } from "#shared/tries";
import type { Db } from "../../db/client";
import { storable } from "../../db/storable-text";
import { consoleTries, users } from "../../db/schema/index";

type TryRow = typeof consoleTries.$inferInsert;

/** Text cut to `TRY_KEPT_BODY_BYTES` of UTF-8, a character never split. */
export function keptText(bytes: Buffer): { text: string; truncated: boolean } {
  if (bytes.length <= TRY_KEPT_BODY_BYTES) return { text: bytes.toString("utf8"), truncated: false };
  let end = TRY_KEPT_BODY_BYTES;
  // Back to the start of the character the cut falls in (a UTF-8 continuation byte is 10xxxxxx).
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end -= 1;
  return { text: bytes.subarray(0, end).toString("utf8"), truncated: true };
}

/**
 * Keeps a try and forgets the user's tries older than the newest `TRY_HISTORY_SIZE`; returns its id.
 * Every text is made storable: the bodies and the answer's headers are what the user and the tool
 * sent, and a NUL in any of them would fail the insert after the try was charged.
 */
export async function keepTry(db: Db, row: Omit<TryRow, "id">): Promise<number> {
  const values = Object.fromEntries(Object.entries(row).map(([column, value]) => [column, typeof value === "string" ? storable(value) : value])) as typeof row;
  const [kept] = await db.insert(consoleTries).values(values).returning({ id: consoleTries.id });
  const [oldestKept] = await db
    .select({ id: consoleTries.id })
    .from(consoleTries)
    .where(eq(consoleTries.userId, row.userId))
    .orderBy(desc(consoleTries.id))
    .offset(TRY_HISTORY_SIZE - 1)
    .limit(1);
  if (oldestKept) await db.delete(consoleTries).where(and(eq(consoleTries.userId, row.userId), lt(consoleTries.id, oldestKept.id)));
  return kept!.id;
}

/** The user's kept tries, newest first. */
export async function keptTries(db: Db, userId: number): Promise<KeptTry[]> {
  const rows = await db.select().from(consoleTries).where(eq(consoleTries.userId, userId)).orderBy(desc(consoleTries.id)).limit(TRY_HISTORY_SIZE);
  return rows.map((r) => ({
    id: r.id,
    time: beijingIso(r.createdAt),
    keyId: r.apiKeyId,
    toolId: r.toolId,
    method: r.method as KeptTry["method"],
    path: r.path,
    contentType: r.contentType,
    requestBody: r.requestBody,
    requestTruncated: r.requestTruncated,
    requestId: r.requestId,
    status: r.status,
    responseContentType: r.responseContentType,
    responseBody: r.responseBody,
    responseTruncated: r.responseTruncated,
    amount: formatMoney(r.amount),
  }));
}

/** The user's balance now, as a decimal string. */
export async function balanceOf(db: Db, userId: number): Promise<string> {
  const [user] = await db.select({ balance: users.balance }).from(users).where(eq(users.id, userId));
  return formatMoney(user?.balance ?? 0n);
}
