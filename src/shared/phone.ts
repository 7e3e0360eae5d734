/** SPEC.md §5: mainland mobile numbers, 11 digits, 1 then 3–9. */
export const PHONE_PATTERN = /^1[3-9]\d{9}$/;
export const PHONE_LENGTH = 11;
export const CODE_LENGTH = 6;
export const CODE_PATTERN = /^\d{6}$/;

export type PhoneProblem = "required" | "invalid";

/** What the login form says about a phone as typed: null when it is valid. */
export function phoneProblem(input: string): PhoneProblem | null {
  if (input === "") return "required";
  if (input.length > PHONE_LENGTH || !PHONE_PATTERN.test(input)) return "invalid";
  return null;
}

export function isValidCode(input: string): boolean {
  return CODE_PATTERN.test(input);
}

/**
 * The server's reading of a phone: spaces, dashes and a +86 / 0086 / 86 prefix are stripped.
 * Returns the 11-digit number, or null when what is left is not a mainland mobile number.
 */
export function normalizePhone(input: string): string | null {
  let digits = input.replace(/[\s-]/g, "");
  if (digits.startsWith("+86")) digits = digits.slice(3);
  else if (digits.startsWith("0086")) digits = digits.slice(4);
  else if (digits.length === 13 && digits.startsWith("86")) digits = digits.slice(2);
  return PHONE_PATTERN.test(digits) ? digits : null;
}
