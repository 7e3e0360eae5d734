import type { Language } from "../i18n";

/*
 * Dates written by hand in the patterns Intl.DateTimeFormat gives for our two languages, in the
 * reader's time zone (the Date's local fields, which is what Intl uses without a timeZone option).
 * The first Intl.DateTimeFormat a page constructs loads ICU's date patterns and calendar data: one
 * call of 60–100 ms on Lighthouse's throttled phone, inside the render of the first card that shows
 * a date (decision 041). These are a few string joins. tests/unit/format-date.test.ts compares
 * them with Intl over a year of times in both languages.
 */

const EN_MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));

function dateOf(d: Date, language: Language): string {
  return language === "zh-CN"
    ? `${d.getFullYear()}年${d.getMonth() + 1}月${d.getDate()}日`
    : `${EN_MONTHS[d.getMonth()]} ${d.getDate()}, ${d.getFullYear()}`;
}

function timeOf(d: Date, language: Language, seconds: boolean): string {
  const h = d.getHours();
  const rest = `${pad2(d.getMinutes())}${seconds ? `:${pad2(d.getSeconds())}` : ""}`;
  return language === "zh-CN" ? `${pad2(h)}:${rest}` : `${h % 12 || 12}:${rest} ${h < 12 ? "AM" : "PM"}`;
}

/** A time as the reader's locale writes it, e.g. "Mar 1, 2026, 4:00 PM" (Intl's medium date, short time). */
export function formatDateTime(iso: string, language: Language): string {
  const d = new Date(iso);
  return language === "zh-CN" ? `${dateOf(d, language)} ${timeOf(d, language, false)}` : `${dateOf(d, language)}, ${timeOf(d, language, false)}`;
}

/** A day as the reader's locale writes it, e.g. "Mar 1, 2026" (Intl's medium date). */
export function formatDate(iso: string, language: Language): string {
  return dateOf(new Date(iso), language);
}

/** A time with seconds in numbers, as `Date.prototype.toLocaleString(language)` writes it, e.g. "3/1/2026, 4:00:05 PM". */
export function formatDateTimeNumeric(iso: string, language: Language): string {
  const d = new Date(iso);
  return language === "zh-CN"
    ? `${d.getFullYear()}/${d.getMonth() + 1}/${d.getDate()} ${timeOf(d, language, true)}`
    : `${d.getMonth() + 1}/${d.getDate()}/${d.getFullYear()}, ${timeOf(d, language, true)}`;
}
