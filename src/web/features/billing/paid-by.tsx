import { useState } from "react";
import type { PaidPart } from "#shared/billing";
import { beijingDate } from "#shared/beijing-time";
import { useT } from "../../i18n";
import { usePackageName } from "../../lib/api/list-tools";

/** A free quota's Beijing month (`2026-03`) or day (`2026-03-05`). */
const periodOf = (free: NonNullable<PaidPart["free"]>, at: string | number) => beijingDate(new Date(at)).slice(0, free.period === "month" ? 7 : 10);

/**
 * What paid for a call: `free 12/100 this month`, `package Starter, expires 2026-12-31`, `grant …`,
 * `balance`; a call split across sources shows each part with its units: `free 3/3 this month ×3 + package Starter, … ×4`.
 */
export function PaidBy({ parts, toolId }: { parts: PaidPart[]; toolId: string }) {
  const t = useT();
  // When the row was first shown: whether its quota's period is "this month" or "today".
  const [now] = useState(() => Date.now());
  const packageName = usePackageName();
  const words = (part: PaidPart) => {
    if (part.free) {
      const period = periodOf(part.free, part.free.periodStart);
      const counts = { used: part.free.used.toLocaleString("en-US"), of: part.free.of.toLocaleString("en-US"), period };
      const current = period === periodOf(part.free, now);
      return t(`billing.paidBy.free.${part.free.period}${current ? "Current" : ""}`, counts);
    }
    if (part.source === "package" || part.source === "grant") return t(`billing.paidBy.${part.source}`, { name: packageName(toolId, part.packageId, part.name ?? ""), date: beijingDate(part.expiresAt!) });
    return t("billing.paidBy.balance");
  };
  const text = parts.length === 1 ? words(parts[0]!) : parts.map((part) => t("billing.paidBy.part", { source: words(part), units: part.units.toLocaleString("en-US") })).join(" + ");
  return <span data-testid="billing-paid-by">{text}</span>;
}
