import { describe, expect, it } from "vitest";
import { csvRecords, type CsvCell } from "../../lib/csv";
import { creditsCsvStream } from "./csv";

/** One cell as the CSV writes it. */
function csvCell(value: string, { text = true } = {}): string {
  const cell: CsvCell = text ? value : { numeric: value };
  return csvRecords([[cell]])[0]!;
}

describe("credits CSV", () => {
  it("quotes cells with separators and defuses spreadsheet formulas", () => {
    expect(csvCell("plain")).toBe("plain");
    expect(csvCell('say "hi", twice')).toBe('"say ""hi"", twice"');
    expect(csvCell("=HYPERLINK(\"x\")")).toBe("\"'=HYPERLINK(\"\"x\"\")\"");
    expect(csvCell("+1")).toBe("'+1");
    expect(csvCell("-5.00", { text: false })).toBe("-5.00");
  });

  it("streams a header and one CRLF line per row", async () => {
    async function* rows() {
      yield { id: "l1", time: "2026-03-01T08:00:00.000Z", method: "redemption", amount: "50.00", status: "succeeded" as const, reference: "****-ABCD" };
      yield { id: "l2", time: "2026-03-01T09:00:00.000Z", method: "operator", amount: "1.50", status: "succeeded" as const, reference: "refund, ticket 7" };
    }
    let text = "";
    for await (const chunk of creditsCsvStream(rows())) text += String(chunk);
    expect(text).toBe(
      "time,method,amount,status,reference\r\n" +
        "2026-03-01T16:00:00+08:00,redemption,50.00,succeeded,****-ABCD\r\n" +
        '2026-03-01T17:00:00+08:00,operator,1.50,succeeded,"refund, ticket 7"\r\n',
    );
  });
});

describe("CSV cells opened with another list separator (issue 23 §14)", () => {
  it("defuses a formula trigger after any separator or line break inside a text cell", () => {
    expect(csvCell("x;=1+1")).toBe(`"x;'=1+1"`);
    expect(csvCell("x\n=1+1")).toBe(`"x\n'=1+1"`);
    expect(csvCell("x\r\n@SUM(A1)")).toBe(`"x\r\n'@SUM(A1)"`);
    expect(csvCell("a,+1|-2\t=3")).toBe(`"a,'+1|'-2\t'=3"`);
    expect(csvCell("refund; ticket 7")).toBe(`"refund; ticket 7"`);
  });

  it("leaves numbers alone", () => {
    expect(csvCell("-5.00", { text: false })).toBe("-5.00");
  });
});
