import { describe, expect, it } from "vitest";
import { LANGUAGES } from "../../src/web/i18n";
import { formatDate, formatDateTime, formatDateTimeNumeric } from "../../src/web/lib/format-date";

// Every hour of a year (leap day, both ends of each month, midnight and noon), plus minutes and
// seconds that need padding, in the time zone the tests run in: the strings a reader sees must be
// the ones Intl writes for the same time (decision 041).
const times: string[] = [];
for (let t = Date.UTC(2027, 11, 31, 0, 7, 9); t < Date.UTC(2029, 0, 2); t += 3_600_000 + 61_000) times.push(new Date(t).toISOString());
times.push("2026-03-01T16:00:00Z", "2026-01-09T00:00:00Z", "2026-12-31T23:59:59.999Z");

describe.each(LANGUAGES.map((l) => l.code))("dates in %s", (language) => {
  it("writes a day as Intl's medium date", () => {
    const intl = new Intl.DateTimeFormat(language, { dateStyle: "medium" });
    for (const iso of times) expect(formatDate(iso, language)).toBe(intl.format(new Date(iso)));
  });

  it("writes a time as Intl's medium date and short time", () => {
    const intl = new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" });
    for (const iso of times) expect(formatDateTime(iso, language)).toBe(intl.format(new Date(iso)));
  });

  it("writes a time with seconds as toLocaleString does", () => {
    for (const iso of times) expect(formatDateTimeNumeric(iso, language)).toBe(new Date(iso).toLocaleString(language));
  });
});

it("writes the examples the console shows", () => {
  const at = new Date(2026, 2, 1, 16, 5, 7).toISOString();
  expect(formatDate(at, "en")).toBe("Mar 1, 2026");
  expect(formatDateTime(at, "en")).toBe("Mar 1, 2026, 4:05 PM");
  expect(formatDateTimeNumeric(at, "en")).toBe("3/1/2026, 4:05:07 PM");
  expect(formatDate(at, "zh-CN")).toBe("2026年3月1日");
  expect(formatDateTime(at, "zh-CN")).toBe("2026年3月1日 16:05");
  expect(formatDateTimeNumeric(at, "zh-CN")).toBe("2026/3/1 16:05:07");
});
