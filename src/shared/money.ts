/**
 * Money is an integer count of micro-units (1 unit = 1,000,000) in memory and in the database,
 * and a decimal string on the wire. No binary floating point touches an amount.
 */
export const MICROS_PER_UNIT = 1_000_000n;
export const MAX_MICROS = 9_223_372_036_854_775_807n;
const DECIMAL = /^(-)?(\d+)(?:\.(\d{1,6}))?$/;

export class MoneyFormatError extends Error {
  constructor(input: string) {
    super(`"${input}" is not an amount: use digits with at most 6 decimals, such as 12.50`);
    this.name = "MoneyFormatError";
  }
}

const MIN_MICROS = -MAX_MICROS - 1n;

/**
 * `input`'s micro-units; "malformed" when it is not digits with at most 6 decimals, "outOfRange"
 * when it is but lies beyond the database column's signed 64 bits.
 */
function readMoney(input: string): bigint | "malformed" | "outOfRange" {
  const match = DECIMAL.exec(input.trim());
  if (!match) return "malformed";
  const [, sign, whole = "0", fraction = ""] = match;
  // Past 13 whole digits no amount fits, and BigInt is never asked to read a long run of them.
  if (whole.length > 13) return "outOfRange";
  const magnitude = BigInt(whole) * MICROS_PER_UNIT + BigInt(fraction.padEnd(6, "0"));
  const micros = sign ? -magnitude : magnitude;
  return micros > MAX_MICROS || micros < MIN_MICROS ? "outOfRange" : micros;
}

/** "12.5" → 12500000n. Rejects exponents, separators, more than 6 decimals and values outside 64 bits. */
export function parseMoney(input: string): bigint {
  const micros = readMoney(input);
  if (typeof micros !== "bigint") throw new MoneyFormatError(input);
  return micros;
}

export function isMoney(input: string): boolean {
  return typeof readMoney(input) === "bigint";
}

/** The largest amount there is (2^63-1 micro-units, the database column's limit): "9223372036854.775807". */
export const MAX_AMOUNT = formatMoney(MAX_MICROS);

/**
 * Why `input` is not an amount, or null when it is: "malformed" when it is not digits with at most
 * 6 decimals, "outOfRange" when it is but lies beyond ±MAX_AMOUNT (such as 99999999999999).
 */
export function moneyProblem(input: string): "malformed" | "outOfRange" | null {
  const micros = readMoney(input);
  return typeof micros === "bigint" ? null : micros;
}

/** 12500000n → "12.50": exact, at least two decimals, at most six, trailing zeros beyond two dropped. */
export function formatMoney(micros: bigint): string {
  const negative = micros < 0n;
  const abs = negative ? -micros : micros;
  const whole = abs / MICROS_PER_UNIT;
  const fraction = (abs % MICROS_PER_UNIT).toString().padStart(6, "0").replace(/0{1,4}$/, "");
  return `${negative ? "-" : ""}${whole}.${fraction.padEnd(2, "0")}`;
}

/** SPEC.md §3: the balance shown is floored to two decimals, exactly: "0.29" → "0.29", "12.999" → "12.99". */
export function floorMoneyTo2(amount: string): string {
  const micros = parseMoney(amount);
  const cents = 10_000n;
  let floored = (micros / cents) * cents;
  if (micros < 0n && micros % cents !== 0n) floored -= cents;
  const negative = floored < 0n;
  const abs = negative ? -floored : floored;
  const whole = abs / MICROS_PER_UNIT;
  const fraction = ((abs % MICROS_PER_UNIT) / cents).toString().padStart(2, "0");
  return `${negative ? "-" : ""}${whole}.${fraction}`;
}
