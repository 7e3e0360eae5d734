import { Readable } from "node:stream";
import { CHARGES_CSV_HEADER, type ChargeRow } from "../../../shared/money-api";
import { csvCell } from "../../lib/csv";

export function csvLine(row: ChargeRow): string {
  return `${[csvCell(row.time), csvCell(row.method), csvCell(row.amount, { text: false }), csvCell(row.status), csvCell(row.reference)].join(",")}\r\n`;
}

/** The CSV as a stream: a header line, then each row as the generator yields it. */
export function chargesCsvStream(rows: AsyncIterable<ChargeRow>): Readable {
  async function* lines() {
    yield `${CHARGES_CSV_HEADER.join(",")}\r\n`;
    for await (const row of rows) yield csvLine(row);
  }
  return Readable.from(lines());
}
