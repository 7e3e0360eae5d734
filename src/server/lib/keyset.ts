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

/** The cursor of a list in (time, id) order: the last row's time in microseconds since the epoch, exact, and its id. */
export interface TimeIdCursor {
  at: string;
  id: number;
}

/** At most 17 digits (until the year 5138): a forged larger one would overflow the database's timestamp arithmetic. */
const validTimeId = (value: Record<string, unknown>) => typeof value.at === "string" && /^\d{1,17}$/.test(value.at) && Number.isSafeInteger(value.id);

/** The condition for the rows after `text` in a newest-first list ordered by (`time`, `id`); a bad cursor is refused. */
export function beforeTimeId(time: SQL, id: SQL, text: string): SQL {
  const cursor = decodeCursor<TimeIdCursor>(text, validTimeId);
  return sql`(${time}, ${id}) < (timestamptz 'epoch' + ${cursor.at}::bigint * interval '1 microsecond', ${cursor.id}::bigint)`;
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
