import { pipeline, Readable } from "node:stream";
import { stringify } from "csv-stringify";
import { stringify as stringifyNow } from "csv-stringify/sync";

/** What starts a formula in a spreadsheet cell. */
const FORMULA_TRIGGER = "[=+\\-@\\t\\r]";
/** Separators a spreadsheet may split on (comma, semicolon, tab, pipe) and line breaks: each starts a new cell. */
const CELL_START = "[,;\\t|\\r\\n]";
const TRIGGER_AT_CELL_START = new RegExp(`(^|${CELL_START})(?=${FORMULA_TRIGGER})`, "g");

/** A cell: text (its formula triggers defused), or a decimal number written as it is. */
export type CsvCell = string | { numeric: string | number };

/**
 * In a text cell, a formula trigger at the start or after any separator or line break is prefixed
 * with ', so no list separator or line ending turns part of it into a formula.
 */
function defused(cell: CsvCell): string {
  return typeof cell === "string" ? cell.replace(TRIGGER_AT_CELL_START, "$1'") : String(cell.numeric);
}

/** Quoted besides what RFC 4180 quotes: other list separators and lone line breaks. */
const OPTIONS = { record_delimiter: "windows", quoted_match: /[;\t\r\n]/ } as const;

/**
 * RFC 4180 CSV (csv-stringify) with CRLF line ends, streamed: the header, then a line per row as
 * `rows` yields it. Cells holding another list separator or a line break are quoted too, so a
 * spreadsheet that splits on `;` or tabs keeps them whole. A failing `rows` breaks the stream.
 */
export function csvStream<Row>(header: readonly string[], rows: AsyncIterable<Row>, cells: (row: Row) => CsvCell[]): Readable {
  const records = async function* () {
    yield header;
    for await (const row of rows) yield cells(row).map(defused);
  };
  // The error, if any, reaches the reader through the returned stream, which pipeline destroys with it.
  return pipeline(Readable.from(records()), stringify(OPTIONS), () => undefined);
}

/** The same CSV for records already in memory (the header first), one string per record without its line end. */
export function csvRecords(records: readonly (readonly CsvCell[])[]): string[] {
  return records.map((record) => stringifyNow([record.map(defused)], OPTIONS).slice(0, -2));
}
