import { API_KEY_PREFIX, API_KEY_RANDOM_LENGTH, maskApiKey } from "#shared/api-keys";
import { REDEMPTION_CODE_ALPHABET, REDEMPTION_CODE_SYMBOLS, normalizeRedemptionCode } from "#shared/redemption-code";
import { maskedCode } from "../modules/redemption/codes";

/*
 * What an operator types may hold a secret: an API key or a redemption code pasted to find its owner
 * or to void it. The audit log and the CLI's error messages keep such a secret as the console shows
 * it, wherever it stands: a key as `tg_…wxyz`, a code as `****-WXYZ`.
 *
 * - A key is `tg_` and its random characters. Only `tg_` is public (the stored prefix), so anything
 *   from `tg_` on that could be the start of a key is kept as `tg_…`, and a whole key as the console
 *   masks it (its last four). The console's own masked form (`tg_…wxyz`) is no secret and stays.
 * - A code is 20 symbols of its alphabet. It is redeemed in any case with spaces or dashes anywhere
 *   (normalizeRedemptionCode), so a word that reduces to one is a code; in running text (or typed
 *   as several words) a code is its 20 symbols together or in five groups of four, as codes are
 *   printed. Groups of four keep request ids (8-4-4-4-12) whole.
 */

const KEY_CHARACTERS = "A-Za-z0-9_-";
const SYMBOL = `[${REDEMPTION_CODE_ALPHABET}${REDEMPTION_CODE_ALPHABET.toLowerCase()}]`;
const GROUPS = REDEMPTION_CODE_SYMBOLS / 4;
/** A key, whole or begun, anywhere: pasted with `Bearer `, quotes or spaces around it, or run into other text. */
const KEY = `${API_KEY_PREFIX}[${KEY_CHARACTERS}]+`;
/** A code standing as a word of its own (not inside a longer run of letters and digits). */
const CODE = `(?<![A-Za-z0-9])(?:${SYMBOL}{${REDEMPTION_CODE_SYMBOLS}}|${SYMBOL}{4}(?:[\\s-]+${SYMBOL}{4}){${GROUPS - 1}})(?![A-Za-z0-9])`;
const KEY_IN_TEXT = new RegExp(KEY, "g");
const SECRET_IN_TEXT = new RegExp(`${KEY}|${CODE}`, "g");
/** Where a word splits into parts that could each be a redemption code ("code: K7PQ-…"). */
const AROUND_A_CODE = /([\s:=,;.!?"'()[\]<>]+)/;

/** A secret found in text, as the console shows it. */
function masked(secret: string): string {
  if (secret.startsWith(API_KEY_PREFIX)) {
    return secret.length - API_KEY_PREFIX.length >= API_KEY_RANDOM_LENGTH ? maskApiKey(API_KEY_PREFIX, secret.slice(-4)) : `${API_KEY_PREFIX}…`;
  }
  const code = normalizeRedemptionCode(secret);
  return code ? maskedCode(code.slice(-4)) : secret;
}

/** Text with every API key (or its start) and redemption code in it masked as the console shows them: for error messages that repeat an operator's words. */
export function maskSecrets(text: string): string {
  return text.replace(SECRET_IN_TEXT, masked);
}

/** One word, as a whole or split at punctuation, that reduces to a redemption code however it is spaced or dashed. */
function wordWithoutCode(word: string): string {
  const whole = normalizeRedemptionCode(word);
  if (whole) return maskedCode(whole.slice(-4));
  return word
    .split(AROUND_A_CODE)
    .map((part) => {
      const code = normalizeRedemptionCode(part);
      return code ? maskedCode(code.slice(-4)) : part;
    })
    .join("");
}

/**
 * A command line as the audit log keeps it: every secret masked, also one typed across several
 * words (`codes void k7pq 2xmd 9rtw 4hjb 6nce`), which then becomes one word (`****-6NCE`).
 */
export function argvWithoutSecrets(argv: string[]): string[] {
  const words = argv.map((word) => wordWithoutCode(word.replace(KEY_IN_TEXT, masked)));
  const joined = words.join(" ");
  // The offsets of the spaces that join words: where the result splits into words again.
  const joins = new Set<number>();
  let at = 0;
  for (const word of words.slice(0, -1)) {
    at += word.length;
    joins.add(at);
    at += 1;
  }
  const result: string[] = [];
  let word = "";
  let position = 0;
  const copyTo = (end: number) => {
    for (; position < end; position++) {
      if (!joins.has(position)) word += joined[position];
      else {
        result.push(word);
        word = "";
      }
    }
  };
  for (const match of joined.matchAll(SECRET_IN_TEXT)) {
    copyTo(match.index);
    word += masked(match[0]);
    position = match.index + match[0].length;
  }
  copyTo(joined.length);
  if (argv.length > 0) result.push(word);
  return result;
}
