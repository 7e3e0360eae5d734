import { beijingDayStart } from "#shared/beijing-time";

/** A time range as ISO instants: `from` inclusive, `to` exclusive. */
export interface DateRange {
  from?: string;
  to?: string;
}

/** Two inclusive Beijing days (`YYYY-MM-DD`, as typed in a date field) → the instants the API filters by; null when the start is after the end. */
export function rangeFromDays(fromDay: string, toDay: string): DateRange | null {
  const range: DateRange = {};
  if (fromDay) range.from = beijingDayStart(fromDay).toISOString();
  if (toDay) range.to = beijingDayStart(toDay, 1).toISOString();
  if (range.from && range.to && range.from >= range.to) return null;
  return range;
}
