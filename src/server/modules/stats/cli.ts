import { formatMoney } from "#shared/money";
import { UsageError, type CliCommand } from "../../lib/cli/command";
import { csvRecords } from "../../lib/csv";
import { beijingDate, beijingDayStart } from "#shared/beijing-time";
import { operatorStats, type OperatorStats, type Revenue } from "./stats";

export const STATS_DEFAULT_DAYS = 30;

function parseDay(name: string, text: string): string {
  const start = /^\d{4}-\d{2}-\d{2}$/.test(text) ? beijingDayStart(text) : null;
  if (!start || Number.isNaN(start.getTime()) || beijingDate(start) !== text) {
    throw new UsageError(`--${name}: "${text}" is not a date such as 2026-03-01`);
  }
  return text;
}

/** Rows of `section,key,count,amount` (amount decimal, count empty where it means nothing). */
export function statsRows(s: OperatorStats): string[][] {
  const money = formatMoney;
  return [
    ["range", `${s.range.from}..${s.range.to}`, "", ""],
    // `kind:method` (topup:alipay); a redemption's method is its kind, so its key is plain `redemption`.
    ...s.topUps.map((t) => ["top_up", t.method === t.kind ? t.method : `${t.kind}:${t.method}`, String(t.count), money(t.amount)]),
    ["top_ups_total", "", String(s.topUps.reduce((n, t) => n + t.count, 0)), money(s.topUps.reduce((n, t) => n + t.amount, 0n))],
    ...s.revenueByTool.map((r) => ["revenue_by_tool", r.tool, "", money(r.revenue)]),
    ...(["charges", "refunds", "packagesSold", "packagesRefunded", "revenue"] as const).map((figure) => [
      "revenue_total",
      figure.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
      "",
      money(s.revenueByTool.reduce((n, r) => n + r[figure], 0n)),
    ]),
    ...s.revenueByDay.map((d) => ["revenue_by_day", d.day, "", money(d.revenue)]),
    ["active_users", "", String(s.activeUsers), ""],
    ["active_keys", "", String(s.activeKeys), ""],
    ["sign_ups", "", String(s.signUps), ""],
    ["referral_bonuses", "", String(s.referralBonuses.count), money(s.referralBonuses.amount)],
    ["adjustments", "", String(s.adjustments.count), money(s.adjustments.amount)],
    ["packages_sold", "", String(s.packages.sold.count), money(s.packages.sold.amount)],
    ["packages_refunded", "", String(s.packages.refunded.count), money(s.packages.refunded.amount)],
    ...s.unitsDrawn.map((d) => ["prepaid_units_used", d.source, String(d.units), ""]),
    ["ledger_net", "", "", money(s.ledgerNet)],
  ];
}

/** The figures as one JSON document: amounts as decimal strings. */
export function statsJson(s: OperatorStats) {
  const money = formatMoney;
  const flow = (f: Revenue) => ({
    charges: money(f.charges),
    refunds: money(f.refunds),
    packagesSold: money(f.packagesSold),
    packagesRefunded: money(f.packagesRefunded),
    revenue: money(f.revenue),
  });
  return {
    range: s.range,
    topUps: s.topUps.map((t) => ({ ...t, amount: money(t.amount) })),
    revenueByTool: s.revenueByTool.map((r) => ({ tool: r.tool, ...flow(r) })),
    revenueByDay: s.revenueByDay.map((d) => ({ day: d.day, ...flow(d) })),
    activeUsers: s.activeUsers,
    activeKeys: s.activeKeys,
    signUps: s.signUps,
    referralBonuses: { count: s.referralBonuses.count, amount: money(s.referralBonuses.amount) },
    adjustments: { count: s.adjustments.count, amount: money(s.adjustments.amount) },
    packages: {
      sold: { count: s.packages.sold.count, amount: money(s.packages.sold.amount) },
      refunded: { count: s.packages.refunded.count, amount: money(s.packages.refunded.amount) },
    },
    prepaidUnitsUsed: s.unitsDrawn,
    ledgerNet: money(s.ledgerNet),
  };
}

function printText(out: (line: string) => void, s: OperatorStats): void {
  const money = formatMoney;
  const pad = (text: string, width: number) => text.padEnd(width);
  out(`Figures for ${s.range.from} to ${s.range.to} (Beijing time), from the ledger`);
  out("");
  out("Top-ups by method");
  // A redemption's method is its kind: "redemption", not "redemption (redemption)".
  for (const t of s.topUps) out(`  ${pad(t.method === t.kind ? t.method : `${t.method} (${t.kind})`, 28)} ${String(t.count).padStart(8)}  ${money(t.amount).padStart(16)}`);
  out(`  ${pad("total", 28)} ${String(s.topUps.reduce((n, t) => n + t.count, 0)).padStart(8)}  ${money(s.topUps.reduce((n, t) => n + t.amount, 0n)).padStart(16)}`);
  out("");
  const parts = (r: Revenue) =>
    `(calls charged ${money(r.charges)}, refunded ${money(r.refunds)}; packages sold ${money(r.packagesSold)}, refunded ${money(r.packagesRefunded)})`;
  const total = (figure: keyof Revenue) => s.revenueByTool.reduce((n, r) => n + r[figure], 0n);
  out("Revenue by tool: calls charged (less what the gateway gave back) less refunded, plus packages sold less refunded");
  for (const r of s.revenueByTool) out(`  ${pad(r.tool, 28)} ${money(r.revenue).padStart(26)}  ${parts(r)}`);
  out(`  ${pad("total", 28)} ${money(total("revenue")).padStart(26)}  ${parts({ charges: total("charges"), refunds: total("refunds"), packagesSold: total("packagesSold"), packagesRefunded: total("packagesRefunded"), revenue: 0n })}`);
  out("");
  out("Revenue by day (the same, on the day of each charge, purchase and refund)");
  for (const d of s.revenueByDay) out(`  ${pad(d.day, 28)} ${money(d.revenue).padStart(26)}`);
  out("");
  out(`Active users (made a call)   ${s.activeUsers}`);
  out(`Active API keys              ${s.activeKeys}`);
  out(`Sign-ups                     ${s.signUps}`);
  out(`Referral bonuses paid        ${s.referralBonuses.count}, ${money(s.referralBonuses.amount)}`);
  out(`Operator adjustments         ${s.adjustments.count}, ${money(s.adjustments.amount)}`);
  out(`Packages sold                ${s.packages.sold.count}, ${money(s.packages.sold.amount)} (in the revenue above)`);
  out(`Packages refunded            ${s.packages.refunded.count}, ${money(s.packages.refunded.amount)} (in the revenue above)`);
  out(`Prepaid units used           ${s.unitsDrawn.map((d) => `${d.source} ${d.units}`).join(", ") || "none"}`);
  out(`Net change of all balances   ${money(s.ledgerNet)} (top-ups + adjustments + referral bonuses − revenue)`);
}

export const statsCommand: CliCommand = {
  name: "stats",
  summary: "the operator's figures: top-ups by method, revenue (calls and packages, less refunds) by tool and by day, active users and keys, sign-ups, referral bonuses, packages sold and prepaid units used",
  usage: `stats [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--csv | --json]   (Beijing days, both included; default the last ${STATS_DEFAULT_DAYS} days)`,
  examples: ["stats", "stats --from 2026-11-01 --to 2026-11-30 --csv", "stats --json"],
  options: { from: true, to: true, csv: false, json: false },
  async run(ctx, { positionals, options }) {
    if (positionals.length > 0) throw new UsageError(`unexpected "${positionals[0]}"`);
    const to = typeof options.to === "string" ? parseDay("to", options.to) : beijingDate(ctx.clock.now());
    const from =
      typeof options.from === "string" ? parseDay("from", options.from) : beijingDate(new Date(beijingDayStart(to).getTime() - (STATS_DEFAULT_DAYS - 1) * 86_400_000));
    // Without --to the range ends today: say so, lest the operator look for a --to they never gave.
    if (from > to) throw new UsageError(typeof options.to === "string" ? `--from ${from} is after --to ${to}` : `--from ${from} is after today (${to}, Beijing time), where the range ends without --to`);
    if (options.csv === true && options.json === true) throw new UsageError("give --csv or --json, not both");
    const stats = await operatorStats(ctx.db, { from, to });
    if (options.csv === true) {
      const rows = statsRows(stats).map(([section, key, ...figures]) => [section!, key!, ...figures.map((figure) => ({ numeric: figure }))]);
      for (const line of csvRecords([["section", "key", "count", "amount"], ...rows])) ctx.out(line);
    } else if (options.json === true) {
      ctx.out(JSON.stringify(statsJson(stats), null, 2));
    } else {
      printText((line) => ctx.out(line), stats);
    }
    return 0;
  },
};
