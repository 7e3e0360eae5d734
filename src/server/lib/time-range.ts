import { AFTER_STORABLE_TIME } from "#shared/storable-time";
import { AppError } from "../errors";

/** The times a range may name: the database takes no year 0 or before, nor past 9999 (an offset can cross either). */
const EARLIEST = Date.parse("0001-01-01T00:00:00Z");

function rangeEnd(name: "from" | "to", text: string | undefined): Date | undefined {
  if (!text) return undefined;
  const at = new Date(text);
  if (!(at.getTime() >= EARLIEST && at.getTime() < AFTER_STORABLE_TIME)) throw AppError.badRequest(`${name} must be a time in the years 1 to 9999`);
  return at;
}

/** A `from` (inclusive) / `to` (exclusive) query pair as dates; refuses a range that ends before it starts. */
export function timeRange(query: { from?: string; to?: string }): { from?: Date; to?: Date } {
  const from = rangeEnd("from", query.from);
  const to = rangeEnd("to", query.to);
  if (from && to && from >= to) throw AppError.badRequest("the start of the range must be before its end");
  return { from, to };
}
