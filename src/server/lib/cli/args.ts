import { UsageError } from "./command";

/** The one reading of a count on the command line: plain decimal digits, no exponent, sign, hex or separators. */
export function parseCount(text: string | boolean | undefined, name: string, min: number, max: number): number {
  const value = typeof text === "string" && /^\d{1,9}$/.test(text) ? Number(text) : NaN;
  if (!(value >= min && value <= max)) throw new UsageError(`${name}: a whole number from ${min} to ${max} is required, in plain digits`);
  return value;
}

/** The `--reason` an operator must give (at most 200 characters); `why` says what it is for. */
export function requiredReason(option: string | boolean | undefined, why: string): string {
  const reason = typeof option === "string" ? option.trim() : "";
  if (!reason) throw new UsageError(`--reason is required: ${why}`);
  if (reason.length > 200) throw new UsageError("--reason: at most 200 characters");
  return reason;
}
