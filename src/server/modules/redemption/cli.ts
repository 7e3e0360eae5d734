import { formatMoney, isMoney, parseMoney } from "../../../shared/money";
import { UsageError, type CliCommand } from "../../cli/command";
import { MAX_CODES_PER_BATCH, createCodes } from "./service";

/** `2027-01-01` is valid through the end of that day in Beijing time (the market's clock); a full ISO time is taken as is. */
export function parseExpiry(text: string, now: Date): Date {
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const realDay = day && new Date(Date.UTC(+day[1]!, +day[2]! - 1, +day[3]!)).toISOString().startsWith(text);
  const at = day ? new Date(`${text}T23:59:59.999+08:00`) : new Date(text);
  if ((day && !realDay) || (!day && !/^\d{4}-\d{2}-\d{2}T/.test(text)) || Number.isNaN(at.getTime())) {
    throw new UsageError(`--expires: "${text}" is not a date such as 2027-01-01`);
  }
  if (at <= now) throw new UsageError(`--expires: ${text} is already past`);
  return at;
}

export const codesCreateCommand: CliCommand = {
  name: "codes create",
  summary: "print new redemption codes (only their hashes are stored)",
  usage: "codes create --amount <amount> --count <n> [--expires 2027-01-01]",
  options: { amount: true, count: true, expires: true },
  async run(ctx, { options }) {
    const amountText = options.amount;
    if (typeof amountText !== "string" || !isMoney(amountText) || parseMoney(amountText) <= 0n) {
      throw new UsageError("--amount: a positive amount such as 50 or 9.90 is required");
    }
    const count = Number(options.count);
    if (!Number.isInteger(count) || count < 1 || count > MAX_CODES_PER_BATCH) {
      throw new UsageError(`--count: a whole number from 1 to ${MAX_CODES_PER_BATCH} is required`);
    }
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
