/** What starts a formula in a spreadsheet cell. */
const FORMULA_TRIGGER = "[=+\\-@\\t\\r]";
/** Separators a spreadsheet may split on (comma, semicolon, tab, pipe) and line breaks: each starts a new cell. */
const CELL_START = "[,;\\t|\\r\\n]";
const TRIGGER_AT_CELL_START = new RegExp(`(^|${CELL_START})(?=${FORMULA_TRIGGER})`, "g");

/**
 * RFC 4180 quoting. In a text cell, a formula trigger at the start or after any separator or line
 * break is prefixed with ', so no list separator or line ending turns part of it into a formula.
 */
export function csvCell(value: string, { text = true } = {}): string {
  const safe = text ? value.replace(TRIGGER_AT_CELL_START, "$1'") : value;
  return /[",;\t\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}
