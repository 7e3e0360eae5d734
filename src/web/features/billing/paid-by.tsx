import type { PaidPart } from "#shared/billing";
import { beijingDate } from "#shared/beijing-time";
import { useT } from "../../i18n";

/**
 * What paid for a call: `free quota`, `package Starter, expires 2026-12-31`, `grant …`, `balance`;
 * a call split across sources shows each part with its units: `free quota ×3 + package Starter, … ×4`.
 */
export function PaidBy({ parts }: { parts: PaidPart[] }) {
  const t = useT();
  const words = (part: PaidPart) =>
    part.source === "free" || part.source === "balance"
      ? t(`billing.paidBy.${part.source}`)
      : t(`billing.paidBy.${part.source}`, { name: part.name ?? "", date: beijingDate(part.expiresAt!) });
  const text = parts.length === 1 ? words(parts[0]!) : parts.map((part) => t("billing.paidBy.part", { source: words(part), units: part.units.toLocaleString("en-US") })).join(" + ");
  return <span data-testid="billing-paid-by">{text}</span>;
}
