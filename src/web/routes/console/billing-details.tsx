import { Typography } from "antd";
import { useT } from "../../i18n";
import { ShownWhenLoaded } from "../../components/shown-when-loaded";
import { BillingHistory } from "../../features/billing/billing-history";
import { billingQueryOptions } from "../../features/billing/api/list-billing";
import { keysQueryOptions } from "../../lib/api/list-keys";
import { toolsQueryOptions } from "../../lib/api/list-tools";
import { loadConsoleData } from "../../lib/console-data";

/** The user info, the unfiltered charges and the filter's tools and keys, at once (decision 037). */
export function clientLoader() {
  return loadConsoleData((client, token) => [
    client.prefetchInfiniteQuery(billingQueryOptions({}, token)),
    client.prefetchQuery(toolsQueryOptions()),
    client.prefetchQuery(keysQueryOptions(token)),
  ]);
}

/** Consumption: every charged call, what it cost and which key made it. */
export default function ConsoleBillingDetailsPage() {
  const t = useT();
  return (
    <section data-testid="console-billing-details">
      <Typography.Title level={2}>{t("nav.billingDetails")}</Typography.Title>
      <Typography.Paragraph type="secondary">{t("billing.intro")}</Typography.Paragraph>
      <ShownWhenLoaded>
        <BillingHistory />
      </ShownWhenLoaded>
    </section>
  );
}
