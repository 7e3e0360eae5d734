/**
 * A tool's price (flat, or its tiers), free quota and packages in a reader's words, one line each:
 * the landing page's cards and the docs' tool pages show the same lines. Written by the server at start-up (decision
 * 056), so none of it is in a page's JavaScript.
 */
import type { PublicTool } from "./catalog";
import { packageName } from "./tool-text";

type Language = "en" | "zh-CN";
type PlannedTool = Pick<PublicTool, "price" | "freeQuota" | "packages" | "tiers">;

const count = (n: number) => n.toLocaleString("en-US");

const WORDS = {
  en: {
    units: (n: number, unit: string) => `${count(n)} ${n === 1 ? unit : `${unit}s`}`,
    tiers: { graduated: "Priced by the month's use, each band at its price:", volume: "Priced by the month's use, a call's all at the band it reaches:" },
    band: (from: number, upTo: number | null, price: string, unit: string) => `${count(from)}${upTo === null ? " and on" : `–${count(upTo)}`}: ${price} / ${unit}`,
    example: (units: string, cost: string) => `${units} in a month: ${cost}`,
    free: (units: string, period: "day" | "month") => `Free: ${units} a ${period}`,
    package: (name: string, units: string, price: string, days: number) => `Package ${name}: ${units} for ${price}, usable ${days === 1 ? "1 day" : `${count(days)} days`}`,
  },
  "zh-CN": {
    units: (n: number, unit: string) => `${count(n)} ${unit}`,
    tiers: { graduated: "按当月用量阶梯计价，各档用量按各档价格：", volume: "按当月用量阶梯计价，一次调用全部按达到的档位：" },
    band: (from: number, upTo: number | null, price: string, unit: string) => `${count(from)}${upTo === null ? " 起" : `–${count(upTo)}`}：${price}/${unit}`,
    example: (units: string, cost: string) => `当月 ${units}：${cost}`,
    free: (units: string, period: "day" | "month") => `免费额度：每${period === "day" ? "天" : "月"} ${units}`,
    package: (name: string, units: string, price: string, days: number) => `次数包「${name}」：${units} ${price}，购买后 ${count(days)} 天内有效`,
  },
} satisfies Record<Language, unknown>;

/**
 * A tool's price lines: its flat price in the caller's words (`flatPrice`, given the amount with its
 * currency), or its tiers in place of it; then its free quota and packages. `unit`: the tool's unit
 * in the reader's words, or null per call.
 */
export function planLines(tool: PlannedTool, language: Language, currency: string, unit: string | null, flatPrice: (amount: string) => string): string[] {
  const words = WORDS[language];
  const each = unit ?? (language === "en" ? "call" : "次");
  const units = (n: number) => words.units(n, each);
  const lines: string[] = [];
  if (!tool.tiers) lines.push(flatPrice(`${currency}${tool.price}`));
  else {
    lines.push(words.tiers[tool.tiers.mode]);
    let from = 1;
    for (const band of tool.tiers.bands) {
      lines.push(words.band(from, band.upTo, `${currency}${band.price}`, each));
      from = (band.upTo ?? 0) + 1;
    }
    lines.push(words.example(units(tool.tiers.example.units), `${currency}${tool.tiers.example.cost}`));
  }
  if (tool.freeQuota) lines.push(words.free(units(tool.freeQuota.units), tool.freeQuota.period));
  for (const pkg of tool.packages) lines.push(words.package(packageName(pkg, language), units(pkg.units), `${currency}${pkg.price}`, pkg.validDays));
  return lines;
}
