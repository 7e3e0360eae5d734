import { AppError } from "../errors";

/** A `from` (inclusive) / `to` (exclusive) query pair as dates; refuses a range that ends before it starts. */
export function timeRange(query: { from?: string; to?: string }): { from?: Date; to?: Date } {
  const from = query.from ? new Date(query.from) : undefined;
  const to = query.to ? new Date(query.to) : undefined;
  if (from && to && from >= to) throw AppError.badRequest("the start of the range must be before its end");
  return { from, to };
}
