import type { Readable } from "node:stream";
import { CHARGES_CSV_HEADER, type ChargeRow } from "#shared/money-api";
import { csvStream } from "../../lib/csv";

/** The credits as CSV: time, method, amount, status, reference. */
export function chargesCsvStream(rows: AsyncIterable<ChargeRow>): Readable {
  return csvStream(CHARGES_CSV_HEADER, rows, (row) => [row.time, row.method, { numeric: row.amount }, row.status, row.reference]);
}
