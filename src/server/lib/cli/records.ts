import { beijingDateTime } from "#shared/beijing-time";
import type { CliContext } from "./command";

/** A time in a table cell: Beijing time with its offset, or "-" for none. */
export const timeCell = (at: Date | null): string => (at ? beijingDateTime(at) : "-");

export type Column<T> = { header: string; value: (row: T) => string };

/**
 * Prints records as one JSON document (`--json`, for scripts) or as a table aligned under a header
 * row. `json` is what the document holds for each row: plain values, amounts as decimal strings.
 * No rows print no table (a header over nothing reads as output that went missing), but `empty`, a
 * sentence on stderr, where the command says nothing else of an empty answer.
 */
export function printRecords<T>(ctx: CliContext, rows: T[], options: { json: boolean; columns: Column<T>[]; toJson: (row: T) => unknown; empty?: string }): void {
  if (options.json) {
    ctx.out(JSON.stringify(rows.map(options.toJson), null, 2));
    return;
  }
  if (rows.length === 0) {
    if (options.empty !== undefined) ctx.err(options.empty);
    return;
  }
  const cells = [options.columns.map((c) => c.header), ...rows.map((row) => options.columns.map((c) => c.value(row)))];
  const widths = options.columns.map((_, i) => Math.max(...cells.map((line) => line[i]!.length)));
  for (const line of cells) ctx.out(line.map((cell, i) => cell.padEnd(widths[i]!)).join("  ").trimEnd());
}

/**
 * Prints one record as aligned `field  value` lines (a list of values one a line, under each other;
 * an empty list as "none"), or as one JSON document.
 */
export function printRecord(ctx: CliContext, fields: [string, string | string[]][], options: { json: boolean; document: unknown }): void {
  if (options.json) {
    ctx.out(JSON.stringify(options.document, null, 2));
    return;
  }
  const width = Math.max(...fields.map(([name]) => name.length));
  for (const [name, value] of fields) {
    const lines = typeof value === "string" ? [value] : value.length > 0 ? value : ["none"];
    ctx.out(lines.map((line, i) => `${(i === 0 ? name : "").padEnd(width)}  ${line}`).join("\n"));
  }
}
