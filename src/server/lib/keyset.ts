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
