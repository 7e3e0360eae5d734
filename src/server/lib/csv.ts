/** RFC 4180 quoting; a text cell that a spreadsheet would run as a formula is prefixed with '. */
export function csvCell(value: string, { text = true } = {}): string {
  const safe = text && /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}
