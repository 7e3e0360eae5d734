import { siteConfig } from "../../lib/site-config";
import type { ChargesRange } from "./api/list-charges";

export function withCurrency(amount: string): string {
  return `${siteConfig.currencySymbol}${amount}`;
}

/** `YYYY-MM-DD` as typed in a date field, read as the start of that day on the reader's clock. */
function localDayStart(day: string, addDays = 0): Date {
  const [y, m, d] = day.split("-").map(Number);
  return new Date(y!, m! - 1, d! + addDays);
}

/** Two inclusive calendar days → the instants the API filters by; null when the start is after the end. */
export function rangeFromDays(fromDay: string, toDay: string): ChargesRange | null {
  const range: ChargesRange = {};
  if (fromDay) range.from = localDayStart(fromDay).toISOString();
  if (toDay) range.to = localDayStart(toDay, 1).toISOString();
  if (range.from && range.to && range.from >= range.to) return null;
  return range;
}
