import { stdSerializers } from "pino";

/*
 * A failed query must be logged by its statement and its error, never by its values (a contact
 * e-mail, a use case, a key's hash): drizzle's error carries the bound values in `params` and in
 * its message and stack, and PostgreSQL's `detail` repeats the row ("Key (phone)=(…)").
 */

/** PostgreSQL's fields of an error worth a log line; `detail`, `where`, `hint` and `internalQuery` may quote values. */
const DATABASE_FIELDS = ["code", "severity", "schema", "table", "column", "dataType", "constraint", "routine"] as const;
/** SQLSTATE class 22 (data exception) messages quote the offending value, as in `invalid input syntax for type bigint: "…"`. */
const DATA_EXCEPTION = /^22/;

type ErrorLike = Error & Record<string, unknown>;

const isError = (value: unknown): value is ErrorLike => value instanceof Error;
const isFailedQuery = (error: ErrorLike) => typeof error.query === "string" && "params" in error;
const isDatabaseError = (error: ErrorLike) => typeof error.code === "string" && /^[0-9A-Z]{5}$/.test(error.code) && typeof error.severity === "string";

function involvesDatabase(error: unknown, depth = 0): boolean {
  if (!isError(error) || depth > 8) return false;
  return isFailedQuery(error) || isDatabaseError(error) || involvesDatabase(error.cause, depth + 1);
}

/** The stack's frames without its first lines, which repeat the message. */
function frames(error: Error): string {
  return (error.stack ?? "")
    .split("\n")
    .filter((line) => line.startsWith("    at "))
    .join("\n");
}

function scrubbed(error: unknown, depth: number): unknown {
  if (!isError(error)) return error;
  if (depth > 8) return { type: error.name };
  let message = error.message;
  const out: Record<string, unknown> = { type: error.constructor?.name ?? error.name };
  if (isFailedQuery(error)) {
    message = `Failed query: ${String(error.query)}`;
  } else if (isDatabaseError(error)) {
    if (DATA_EXCEPTION.test(String(error.code))) message = message.replace(/"[^"]*"/g, '"…"');
    for (const field of DATABASE_FIELDS) if (error[field] !== undefined) out[field] = error[field];
  }
  out.message = message;
  out.stack = `${error.name}: ${message}\n${frames(error)}`;
  if (error.cause !== undefined) out.cause = scrubbed(error.cause, depth + 1);
  return out;
}

/** pino's `err` serializer, except for errors from the database, which lose every value they carry. */
export function serializeError(error: Error): ReturnType<typeof stdSerializers.err> {
  return involvesDatabase(error) ? (scrubbed(error, 0) as ReturnType<typeof stdSerializers.err>) : stdSerializers.err(error);
}
