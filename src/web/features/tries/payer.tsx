import { useQuery } from "@tanstack/react-query";
import type { ApiKey } from "#shared/api-keys";
import { beijingDate } from "#shared/beijing-time";
import type { PublicTool } from "#shared/catalog";
import { packageName, toolText } from "#shared/tool-text";
import { useLanguage, useT } from "../../i18n";
import { withCurrency } from "../../lib/money-format";
import { useSession } from "../../lib/session-store";
import { lotsQueryOptions } from "../../lib/api/list-lots";
import { unitsText } from "../../lib/units-text";

/**
 * What would pay for a try's call, as the gateway draws (decision 054): the tool's first usable
 * lot (this period's free quota, then the package or grant that expires soonest), else the
 * balance at the tool's price, or nothing for a key set to stop when its prepaid units run out.
 */
export function Payer({ tool, apiKey }: { tool: PublicTool; apiKey: ApiKey | undefined }) {
  const t = useT();
  const language = useLanguage((s) => s.language);
  const token = useSession((s) => s.token);
  const balance = useSession((s) => s.userInfo && (s.userInfo.exactBalance ?? s.userInfo.balance));
  const hasPlans = tool.freeQuota !== null || tool.packages.length > 0;
  const lots = useQuery({ ...lotsQueryOptions(token), enabled: hasPlans });
  if (hasPlans && lots.isPending) return <>…</>;
  const lot = lots.data?.find((candidate) => candidate.toolId === tool.id && candidate.usable && candidate.unitsLeft > 0);
  const units = (count: number) => unitsText(t, count, tool, language);
  if (lot?.source === "free") {
    return <>{t(tool.freeQuota?.period === "month" ? "tries.payerFreeMonth" : "tries.payerFreeDay", { left: lot.unitsLeft.toLocaleString("en-US"), total: units(lot.unitsGranted) })}</>;
  }
  if (lot) {
    const pkg = tool.packages.find((candidate) => candidate.id === lot.packageId);
    const name = pkg ? packageName(pkg, language) : lot.name;
    return <>{t(lot.source === "grant" ? "tries.payerGrant" : "tries.payerPackage", { name, left: units(lot.unitsLeft), date: beijingDate(lot.expiresAt) })}</>;
  }
  if (hasPlans && apiKey?.whenPrepaidRunsOut === "stop") return <>{t("tries.payerStop")}</>;
  const shown = balance ? withCurrency(balance) : "…";
  if (tool.models) return <>{t("tries.payerBalance", { balance: shown })}</>;
  if (tool.tiers) return <>{t("tries.payerBalanceTiered", { balance: shown })}</>;
  return <>{t("tries.payerBalanceAt", { balance: shown, price: withCurrency(tool.price), unit: toolText(tool, language).unit ?? t("tries.perCall") })}</>;
}
