import { describe, expect, it } from "vitest";
import { arrayLiteral } from "./array-literal";
import { isoTimestamp } from "./iso-timestamp";
import { preparedRows } from "./client";
import { createTestDatabase } from "../testing/test-database";

describe("an array parameter (the database under test)", () => {
  it("reaches the database as the same values, whatever characters its strings hold", async () => {
    const strings = ["plain", "", "NULL", 'say "hi"', "back\\slash", "\\\"", "a,b", "{braces}", " spaced ", "tab\there", "line\nbreak", "价格 ¥1.00", "'quote'", null];
    const database = await createTestDatabase();
    const rows = await preparedRows<{ value: string | null }>(database.db, { name: "array_literal_text", text: "select unnest($1::text[]) as value" }, [arrayLiteral(strings)]);
    expect(rows.map((r) => r.value)).toEqual(strings);
    const numbers = [0, -1, 2147483647, 9007199254740991, null];
    const [sum] = await preparedRows<{ values: string }>(database.db, { name: "array_literal_bigint", text: "select array_to_string($1::bigint[], ',', 'null') as values" }, [arrayLiteral(numbers)]);
    expect(sum!.values).toBe("0,-1,2147483647,9007199254740991,null");
    expect(await preparedRows(database.db, { name: "array_literal_empty", text: "select cardinality($1::text[]) as n" }, [arrayLiteral([])])).toEqual([{ n: 0 }]);
    await database.close();
  });
});

describe("isoTimestamp", () => {
  it("writes every date as toISOString does", () => {
    const dates = [
      "1970-01-01T00:00:00.000Z",
      "1969-12-31T23:59:59.999Z",
      "2024-02-29T23:59:59.999Z",
      "2024-03-01T00:00:00.000Z",
      "2026-11-29T00:00:00.000Z",
      "2026-12-31T23:59:59.009Z",
      "2027-01-01T00:00:00.090Z",
      "0001-01-01T00:00:00.000Z",
      "+010000-01-01T00:00:00.000Z",
    ].map((text) => new Date(text));
    for (let ms = Date.UTC(2026, 10, 28, 23); ms < Date.UTC(2026, 10, 29, 1); ms += 997) dates.push(new Date(ms));
    for (const date of dates) expect(isoTimestamp(date)).toBe(date.toISOString());
    // Alternating days, so the cached day's prefix is made again each time.
    for (const text of ["2026-01-31T10:00:00.001Z", "2026-02-01T10:00:00.010Z", "2026-01-31T23:00:00.100Z"]) expect(isoTimestamp(new Date(text))).toBe(text);
  });

  it("refuses an invalid date as toISOString does", () => {
    expect(() => isoTimestamp(new Date(Number.NaN))).toThrow(RangeError);
  });
});
