import type { Readable } from "node:stream";
import { beijingIso } from "#shared/beijing-time";
import { CREDITS_CSV_HEADER, type CreditRow } from "#shared/money-api";
import { csvStream } from "../../lib/csv";

/** The credits as CSV: time, method, amount, status, reference. */
export function creditsCsvStream(rows: AsyncIterable<CreditRow>): Readable {
  return csvStream(CREDITS_CSV_HEADER, rows, (row) => [beijingIso(row.time), row.method, { numeric: row.amount }, row.status, row.reference]);
}
