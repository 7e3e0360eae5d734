/*
 * Every time a person reads (the console in both languages, the CLI, CSV exports) is Beijing time
 * with its offset written, in one form: decision 047. China has one zone and no daylight saving,
 * so the offset is a constant and these are string slices, with no Intl (whose first use loads
 * ICU's calendar data: decision 041).
 */

export const BEIJING_OFFSET_MS = 8 * 3600_000;

/** An instant, as a Date or as the ISO string the API carries. */
export type Instant = Date | string;

/** The Beijing wall clock of an instant as `YYYY-MM-DDTHH:mm:ss`. */
function wallClock(at: Instant): string {
  return new Date(new Date(at).getTime() + BEIJING_OFFSET_MS).toISOString().slice(0, 19);
}

/** `2027-01-01 23:59:59 +08:00`: how the console and the CLI show a moment. */
export function beijingDateTime(at: Instant): string {
  return `${wallClock(at).replace("T", " ")} +08:00`;
}

/** `2027-01-01`: the Beijing day an instant falls on, how a day (sign-up, expiry) is shown. */
export function beijingDate(at: Instant): string {
  return wallClock(at).slice(0, 10);
}

/** `2027-01-01T23:59:59+08:00`: ISO 8601 with its offset, for CSV exports and machines. */
export function beijingIso(at: Instant): string {
  return `${wallClock(at)}+08:00`;
}

/** The first instant of a Beijing day given as `YYYY-MM-DD`, `addDays` later. */
export function beijingDayStart(day: string, addDays = 0): Date {
  return new Date(Date.parse(`${day}T00:00:00Z`) + addDays * 86_400_000 - BEIJING_OFFSET_MS);
}
