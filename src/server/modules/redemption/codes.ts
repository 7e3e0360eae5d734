import { randomInt } from "node:crypto";
import { REDEMPTION_CODE_ALPHABET, REDEMPTION_CODE_SYMBOLS } from "#shared/redemption-code";
import { sha256Hex } from "../../lib/crypto";

export { normalizeRedemptionCode as normalizeCode } from "#shared/redemption-code";

/** A new code as printed for the operator: five groups of four, e.g. `K7QM-3XH9-…`. */
export function generateCode(): string {
  let code = "";
  for (let i = 0; i < REDEMPTION_CODE_SYMBOLS; i++) code += REDEMPTION_CODE_ALPHABET[randomInt(REDEMPTION_CODE_ALPHABET.length)];
  return code.match(/.{4}/g)!.join("-");
}

/** Codes carry ~99 random bits, so a plain SHA-256 cannot be reversed by trying candidates. */
export function hashCode(normalized: string): string {
  return sha256Hex(`redemption:${normalized}`);
}

/** How a redemption is referenced in the credits list: the code's last four symbols only. */
export function maskedCode(suffix: string): string {
  return `****-${suffix}`;
}
