import { formatMoney, isMoney, parseMoney } from "#shared/money";
import { userText } from "#shared/text";
import { UsageError } from "./command";

/** The one reading of a count on the command line: plain decimal digits, no exponent, sign, hex or separators. */
export function parseCount(text: string | boolean | undefined, name: string, min: number, max: number): number {
  const value = typeof text === "string" && /^\d{1,9}$/.test(text) ? Number(text) : NaN;
  if (!(value >= min && value <= max)) throw new UsageError(`${name}: a whole number from ${min} to ${max} is required, in plain digits`);
  return value;
}

/** "a" or "an" before a word, by its first letter: an id, an application id, a lot id. */
export const article = (word: string): string => (/^[aeiou]/i.test(word) ? "an" : "a");

/**
 * The one id a command's positionals name (`name`: "lot id"), as a number; `where` says where the
 * operator finds ids. None or several given, or a word that is not a whole number, is a usage error
 * that says which.
 */
export function oneId(positionals: string[], name: string, where: string): number {
  const [text, ...extra] = positionals;
  if (!text || extra.length > 0) throw new UsageError(`give one ${name} (${where})`);
  if (!/^\d{1,15}$/.test(text)) throw new UsageError(`"${text}" is not ${article(name)} ${name} (a whole number; ${where})`);
  return Number(text);
}

/**
 * An option's text that is stored and read later, by users (a reason, a note) or in the records:
 * held to the rule for what users type (`userText()`, decision 018), so no control character, line
 * break, tab or text-direction mark reaches a page, a CSV file or a terminal. `multiline` lets line
 * feeds through, as the console does for its one multi-line field. A usage error names the option.
 */
export function storedText(text: string, option: string, { multiline = false } = {}): string {
  const checked = userText(undefined, { multiline }).safeParse(text);
  if (!checked.success) throw new UsageError(`--${option}: ${checked.error.issues[0]!.message}`);
  return text;
}

/** The `--reason` an operator must give (at most 200 characters, one line of plain text); `why` says what it is for. */
export function requiredReason(option: string | boolean | undefined, why: string): string {
  const reason = typeof option === "string" ? option.trim() : "";
  if (!reason) throw new UsageError(`--reason is required: ${why}`);
  if (reason.length > 200) throw new UsageError("--reason: at most 200 characters");
  return storedText(reason, "reason");
}

/**
 * Why `text` is not an amount an operator may give (a positive decimal of at most six places, the
 * micro-unit), or null when it is one: a number with more places is named as such, not called "not
 * a positive amount" as if its sign were the trouble.
 */
function amountProblem(text: string): string | null {
  if (isMoney(text) && parseMoney(text) > 0n) return null;
  if (/^\d+\.\d{7,}$/.test(text)) return "has more than 6 decimal places: amounts are kept to the micro-unit (0.000001)";
  return "is not a positive amount such as 50 or 9.90";
}

/**
 * An amount an operator gives (`option`, when it is one), in micro-units. One that puts money in a
 * user's hands (`cap`: a credit, a redemption code) is held to OPERATOR_CREDIT_MAX unless `force`,
 * since a slip of the keyboard (50000 for 50) is money the moment it is given; `most` says what the
 * cap is the most of.
 */
export function operatorAmount(text: string, words: { option?: string; most: string }, cap: bigint | null, force: boolean): bigint {
  const problem = amountProblem(text);
  if (problem) throw new UsageError(`${words.option ? `${words.option}: ` : ""}"${text}" ${problem}`);
  const amount = parseMoney(text);
  if (cap !== null && amount > cap && !force) {
    throw new UsageError(`${words.option ? `${words.option} ` : ""}${text} is more than ${words.most} (${formatMoney(cap)}, OPERATOR_CREDIT_MAX): check the amount, or add --force`);
  }
  return amount;
}
