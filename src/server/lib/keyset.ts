import { sql, type SQL } from "drizzle-orm";
import { AppError } from "../errors";

/** Opaque page cursors: the last row's sort key, as base64url JSON. */
export function encodeCursor(position: object): string {
  return Buffer.from(JSON.stringify(position)).toString("base64url");
}

export function decodeCursor<T>(text: string, valid: (value: Record<string, unknown>) => boolean): T {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
    if (value && typeof value === "object" && valid(value as Record<string, unknown>)) return value as T;
  } catch {
    /* reported below */
  }
  throw AppError.badRequest("the cursor is not valid: start again from the first page");
}

/**
 * The cursor of a list in (time, id) order: the last row's time in microseconds since the epoch,
 * exact, and its id; in a list of two kinds of rows, the last row's kind's rank between the two.
 */
export interface TimeIdCursor {
  at: string;
  rank?: number;
  id: number;
}

/** At most 17 digits (until the year 5138): a forged larger one would overflow the database's timestamp arithmetic. */
const validTimeId = (value: Record<string, unknown>) => typeof value.at === "string" && /^\d{1,17}$/.test(value.at) && Number.isSafeInteger(value.id);
const validTimeRankId = (value: Record<string, unknown>) => validTimeId(value) && (value.rank === 0 || value.rank === 1);

const cursorTime = (cursor: TimeIdCursor) => sql`timestamptz 'epoch' + ${cursor.at}::bigint * interval '1 microsecond'`;

/** The condition for the rows after `text` in a newest-first list ordered by (`time`, `id`); a bad cursor is refused. */
export function beforeTimeId(time: SQL, id: SQL, text: string): SQL {
  const cursor = decodeCursor<TimeIdCursor>(text, validTimeId);
  return sql`(${time}, ${id}) < (${cursorTime(cursor)}, ${cursor.id}::bigint)`;
}

/**
 * The same, for one of two kinds of rows merged into one list ordered by (`time`, rank, `id`): the
 * rows of the kind ranked `rank` (0 or 1) after `text`. Said as a bound on (`time`, `id`) alone, so
 * the database seeks to it in an index on them rather than reading every newer row.
 */
export function beforeTimeRankId(time: SQL, rank: 0 | 1, id: SQL, text: string): SQL {
  const cursor = decodeCursor<Required<TimeIdCursor>>(text, validTimeRankId);
  if (cursor.rank === rank) return sql`(${time}, ${id}) < (${cursorTime(cursor)}, ${cursor.id}::bigint)`;
  // Rows of this kind at the cursor's instant come after it when they rank below its row.
  return cursor.rank > rank ? sql`${time} <= ${cursorTime(cursor)}` : sql`${time} < ${cursorTime(cursor)}`;
}

/** Every row behind a paged query, a page at a time, so an export never holds the whole list. */
export async function* everyRow<Row>(
  fetchPage: (cursor: string | undefined) => Promise<{ items: Row[]; nextCursor: string | null }>,
): AsyncGenerator<Row> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    yield* page.items;
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
}
