const NEEDS_ESCAPE = /[\\"]/;

/**
 * One array parameter, as a PostgreSQL array literal (cast in the query to its element type):
 * a batch is a handful of parameters however many calls it holds, and bigints stay exact.
 * Built by a loop rather than map and join, and a string escaped only when it has to be: a
 * metered call sends about 35 elements (bench/gateway/README.md, session 30).
 */
export function arrayLiteral(values: readonly (string | number | null)[]): string {
  let literal = "{";
  for (let i = 0; i < values.length; i++) {
    if (i > 0) literal += ",";
    literal += arrayElement(values[i]!);
  }
  return literal + "}";
}

function arrayElement(value: string | number | null): string {
  if (value === null) return "NULL";
  if (typeof value === "number") return String(value);
  return NEEDS_ESCAPE.test(value) ? `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"` : `"${value}"`;
}
