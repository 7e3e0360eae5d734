/* How the operator's tools name a database and say why it could not be reached. */

/**
 * A PostgreSQL URL as the operator may read it back: without its password. Forms `pg` takes but the
 * WHATWG parser refuses (the host as a query parameter, several hosts) lose it by pattern.
 */
export function withoutPassword(url: string): string {
  if (!URL.canParse(url)) return url.replace(/^([a-z]+:\/\/[^:/@]*):[^@]*@/i, "$1@");
  const parsed = new URL(url);
  parsed.password = "";
  return parsed.toString();
}

/** What the database said when it could not be reached: its own message, not drizzle's query. */
export function openingFailure(error: unknown): string {
  let message = error instanceof Error ? error.message : String(error);
  for (let e = error; e instanceof Error; e = e.cause) {
    if (e.message) message = e.message;
    // Node's connect to a host of several addresses fails with an AggregateError that has no message of its own.
    else if (e instanceof AggregateError) message = e.errors.map((inner) => (inner instanceof Error ? inner.message : String(inner))).join("; ");
  }
  return message;
}

/** The database a process opens, as its messages name it: PostgreSQL by its URL without the password, PGlite by its folder. */
export function databaseName(where: { databaseUrl?: string; dataDir: string }): string {
  return where.databaseUrl ? `the PostgreSQL database at ${withoutPassword(where.databaseUrl)}` : `PGlite in ${where.dataDir}`;
}

/** A server that could not open or migrate its database at start-up: said in one sentence that names it, not a stack trace. */
export class DatabaseOpeningError extends Error {
  constructor(where: { databaseUrl?: string; dataDir: string }, cause: unknown) {
    super(`cannot open ${databaseName(where)}: ${openingFailure(cause)}`, { cause });
    this.name = "DatabaseOpeningError";
  }
}
