/**
 * One array parameter, as a PostgreSQL array literal (cast in the query to its element type):
 * a batch is a handful of parameters however many calls it holds, and bigints stay exact.
 */
export const arrayLiteral = (values: (string | number | null)[]) => `{${values.map(arrayElement).join(",")}}`;

function arrayElement(value: string | number | null): string {
  if (value === null) return "NULL";
  if (typeof value === "number") return String(value);
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}
