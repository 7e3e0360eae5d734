import { formatMoney, isMoney, parseMoney } from "#shared/money";
import { parseCount } from "../../cli/args";
import { UsageError, type CliCommand } from "../../cli/command";
import { MAX_CODES_PER_BATCH, createCodes } from "./service";

const EXPIRY = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?(Z|[+-]\d{2}:\d{2})?)?$/;

/**
 * One clock for `--expires`, Beijing time (the market's), whatever the machine's zone: `2027-01-01`
 * is valid through the end of that day, `2027-01-01T18:00` until that time; an explicit `Z` or
 * `+hh:mm` offset is taken as written.
 */
export function parseExpiry(text: string, now: Date): Date {
  const m = EXPIRY.exec(text);
  const [, y, mo, d, h, mi, sec, zone] = m ?? [];
  const realDay = m !== null && new Date(Date.UTC(+y!, +mo! - 1, +d!)).toISOString().startsWith(`${y}-${mo}-${d}`);
  const at = !m ? new Date(NaN) : h === undefined ? new Date(`${y}-${mo}-${d}T23:59:59.999+08:00`) : new Date(`${y}-${mo}-${d}T${h}:${mi}:${sec ?? "00"}${zone ?? "+08:00"}`);
  if (!realDay || Number.isNaN(at.getTime()) || (h !== undefined && (+h > 23 || +mi! > 59 || +(sec ?? 0) > 59))) {
    throw new UsageError(`--expires: "${text}" is not a date such as 2027-01-01 or 2027-01-01T18:00 (Beijing time)`);
  }
  if (at <= now) throw new UsageError(`--expires: ${text} is already past`);
  return at;
}

export const codesCreateCommand: CliCommand = {
  name: "codes create",
  summary: "print new redemption codes (only their hashes are stored)",
  usage: "codes create --amount <amount> --count <n> [--expires 2027-01-01[T18:00]] (Beijing time)",
  options: { amount: true, count: true, expires: true },
  async run(ctx, { options }) {
    const amountText = options.amount;
    if (typeof amountText !== "string" || !isMoney(amountText) || parseMoney(amountText) <= 0n) {
      throw new UsageError("--amount: a positive amount such as 50 or 9.90 is required");
    }
    const count = parseCount(options.count, "--count", 1, MAX_CODES_PER_BATCH);
    const now = ctx.clock.now();
    const expiresAt = typeof options.expires === "string" ? parseExpiry(options.expires, now) : null;
    const amount = parseMoney(amountText);
    const { batch, codes } = await createCodes(ctx.db, { amount, count, expiresAt, now });
    for (const code of codes) ctx.out(code);
    ctx.err(
      `created ${count} code${count === 1 ? "" : "s"} of ${formatMoney(amount)} each, batch ${batch}, ` +
        `${expiresAt ? `valid until ${expiresAt.toISOString()}` : "never expiring"}. They are shown only now: keep them safe.`,
    );
    return 0;
  },
};
