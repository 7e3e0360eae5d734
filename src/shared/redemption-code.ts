/** No 0/O, 1/I/L: a code read aloud or copied by hand stays unambiguous. */
export const REDEMPTION_CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";
/** 20 symbols of 31: about 99 bits, far beyond guessing at any rate the limits allow. */
export const REDEMPTION_CODE_SYMBOLS = 20;
const PATTERN = new RegExp(`^[${REDEMPTION_CODE_ALPHABET}]{${REDEMPTION_CODE_SYMBOLS}}$`);

/** The code as typed (any case, spaces and dashes allowed), reduced to its symbols; null when it cannot be a code. */
export function normalizeRedemptionCode(input: string): string | null {
  const symbols = input.toUpperCase().replace(/[\s-]/g, "");
  return PATTERN.test(symbols) ? symbols : null;
}
