import { beijingDateTime, beijingIso } from "#shared/beijing-time";
import { formatMoney } from "#shared/money";
import { operatorAmount, parseCount } from "../../lib/cli/args";
import { UsageError, type CliCommand, type CliContext } from "../../lib/cli/command";
import { printRecords } from "../../lib/cli/records";
import { csvRecords } from "../../lib/csv";
import { maskedCode } from "./codes";
import { CODE_STATES, batchExists, codeState, listCodes, voidCodes, type CodeRow, type CodeState } from "./operator-codes";
import { MAX_CODES_PER_BATCH, createCodes } from "./service";
import { counted } from "../../lib/cli/counted";

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
  usage: "codes create --amount <amount> --count <n> [--expires 2027-01-01[T18:00]] [--force] (Beijing time)",
  examples: ["codes create --amount 50 --count 100 > codes.txt", "codes create --amount 9.90 --count 20 --expires 2027-01-01"],
  options: { amount: "number", count: "number", expires: true, force: false },
  async run(ctx, { options }) {
    const amountText = options.amount;
    if (typeof amountText !== "string") throw new UsageError("--amount: a positive amount such as 50 or 9.90 is required");
    // A code is money as soon as it is printed, as a credit is: held to the same cap, per code, before any code exists.
    const amount = operatorAmount(amountText, { option: "--amount", most: "one code may be worth" }, ctx.config.money.operatorCreditMaxMicros, options.force === true);
    const count = parseCount(options.count, "--count", 1, MAX_CODES_PER_BATCH);
    const now = ctx.clock.now();
    const expiresAt = typeof options.expires === "string" ? parseExpiry(options.expires, now) : null;
    const { batch, codes } = await createCodes(ctx.db, { amount, count, expiresAt, now });
    for (const code of codes) ctx.out(code);
    ctx.err(
      `created ${counted(count, "code")} of ${formatMoney(amount)} each, batch ${batch}, ` +
        `${expiresAt ? `valid until ${beijingDateTime(expiresAt)}` : "never expiring"}. They are shown only now: keep them safe.`,
    );
    return 0;
  },
};

const codeJson = (code: CodeRow, now: Date) => ({
  id: code.id,
  code: maskedCode(code.suffix),
  amount: formatMoney(code.amount),
  batch: code.batch,
  state: codeState(code, now),
  createdAt: code.createdAt.toISOString(),
  expiresAt: code.expiresAt?.toISOString() ?? null,
  redeemedBy: code.redeemedBy,
  redeemedAt: code.redeemedAt?.toISOString() ?? null,
  voidedAt: code.voidedAt?.toISOString() ?? null,
});

function stateOption(value: string | boolean | undefined): CodeState | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "string" && (CODE_STATES as readonly string[]).includes(value)) return value as CodeState;
  throw new UsageError(`--state: one of ${CODE_STATES.join(", ")}`);
}

const batchOption = (value: string | boolean | undefined) => (typeof value === "string" && value.trim() ? value.trim() : undefined);

/**
 * A batch no code belongs to is a mistyped or wrong name, and every command that takes `--batch`
 * says so alike (exit 1, nothing on stdout), rather than one printing an empty table with exit 0 and
 * another an empty CSV with exit 1.
 */
async function unknownBatch(ctx: CliContext, batch: string | undefined): Promise<boolean> {
  if (batch === undefined || (await batchExists(ctx.db, batch))) return false;
  ctx.err(`no code has batch "${batch}": codes create prints a batch's name, codes list shows every batch`);
  return true;
}

export const codesListCommand: CliCommand = {
  name: "codes list",
  summary: "list redemption codes (masked: only their last four characters are kept), newest first",
  usage: "codes list [--batch <batch>] [--state unused|redeemed|void|expired] [--limit 100] [--json]",
  examples: ["codes list --state unused", "codes list --batch 20270101-3f9a2c --json"],
  options: { batch: true, state: true, limit: "number", json: false },
  async run(ctx, { options }) {
    const now = ctx.clock.now();
    const limit = options.limit === undefined ? 100 : parseCount(options.limit, "--limit", 1, MAX_CODES_PER_BATCH);
    const state = stateOption(options.state);
    const batch = batchOption(options.batch);
    if (await unknownBatch(ctx, batch)) return 1;
    const codes = await listCodes(ctx.db, { batch, state, now, limit });
    printRecords(ctx, codes, {
      json: options.json === true,
      toJson: (code) => codeJson(code, now),
      columns: [
        { header: "CODE", value: (c) => maskedCode(c.suffix) },
        { header: "AMOUNT", value: (c) => formatMoney(c.amount) },
        { header: "BATCH", value: (c) => c.batch },
        { header: "STATE", value: (c) => codeState(c, now) },
        { header: "CREATED", value: (c) => beijingDateTime(c.createdAt) },
        { header: "EXPIRES", value: (c) => (c.expiresAt ? beijingDateTime(c.expiresAt) : "never") },
        { header: "REDEEMED BY", value: (c) => (c.redeemedBy === null ? "-" : `user ${c.redeemedBy} at ${beijingDateTime(c.redeemedAt!)}`) },
      ],
    });
    if (options.json !== true) ctx.err(`${counted(codes.length, "code")}${codes.length === limit ? ` (the first ${limit}: --limit shows more)` : ""}`);
    return 0;
  },
};

export const codesVoidCommand: CliCommand = {
  name: "codes void",
  summary: "withdraw a code, or every unredeemed code of a batch, so it can no longer be redeemed",
  usage: "codes void <code> | codes void --batch <batch>",
  examples: ["codes void K7PQ-2XMD-9RTW-4HJB-6NCE", "codes void --batch 20270101-3f9a2c"],
  options: { batch: true },
  async run(ctx, { positionals, options }) {
    const batch = batchOption(options.batch);
    // A code is redeemed with spaces between its groups, so it may be typed so here, unquoted: its words are one code.
    const code = positionals.length > 0 ? positionals.join(" ") : undefined;
    if ((code === undefined) === (batch === undefined)) throw new UsageError("give one code, or --batch, not both");
    if (await unknownBatch(ctx, batch)) return 1;
    const result = await voidCodes(ctx.db, code !== undefined ? { code } : { batch: batch! }, ctx.clock.now());
    if ("refused" in result) {
      const why = { unknown: "there is no such code", redeemed: "it was redeemed already", void: "it is void already", expired: "", unused: "" }[result.refused];
      ctx.err(`the code was not voided: ${why}`);
      return 1;
    }
    if (result.voided === 0) {
      ctx.err(`batch ${batch} has no code left to void: every one is redeemed or void already`);
      return 1;
    }
    ctx.out(`voided ${counted(result.voided, "code")}: they can no longer be redeemed`);
    return 0;
  },
};

export const codesExportCommand: CliCommand = {
  name: "codes export",
  summary: "a batch's codes as CSV (formula-safe; CSV is its only format): masked code, amount, state, times, who redeemed it",
  usage: "codes export --batch <batch> [--csv]   (CSV either way)",
  examples: ["codes export --batch 20270101-3f9a2c > batch.csv"],
  // CSV is the only format. `--csv` changes nothing, but earlier guides wrote it in the command line,
  // so operators' scripts that pass it keep working.
  options: { batch: true, csv: false },
  async run(ctx, { options }) {
    const batch = batchOption(options.batch);
    if (!batch) throw new UsageError("--batch is required");
    if (await unknownBatch(ctx, batch)) return 1;
    const now = ctx.clock.now();
    const codes = await listCodes(ctx.db, { batch, now, limit: MAX_CODES_PER_BATCH });
    const when = (at: Date | null) => (at ? beijingIso(at) : "");
    const records = csvRecords([
      ["code", "amount", "batch", "state", "created_at", "expires_at", "redeemed_by", "redeemed_at", "voided_at"],
      ...codes.map((c) => [
        maskedCode(c.suffix),
        { numeric: formatMoney(c.amount) },
        c.batch,
        codeState(c, now),
        when(c.createdAt),
        when(c.expiresAt),
        c.redeemedBy === null ? "" : String(c.redeemedBy),
        when(c.redeemedAt),
        when(c.voidedAt),
      ]),
    ]);
    for (const line of records) ctx.out(line);
    ctx.err(`${counted(codes.length, "code")} of batch ${batch}`);
    return 0;
  },
};
