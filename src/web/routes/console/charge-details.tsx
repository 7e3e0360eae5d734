import { useQuery } from "@tanstack/react-query";
import { Space, Typography } from "antd";
import { useT } from "../../i18n";
import { ShownWhenLoaded } from "../../components/shown-when-loaded";
import { CreditsHistory } from "../../features/credits/credits-history";
import { RedeemForm } from "../../features/credits/redeem-form";
import { TopUpCard } from "../../features/credits/top-up-card";
import { paymentMethodsQueryOptions } from "../../features/credits/api/get-payment-methods";
import { creditsQueryOptions } from "../../features/credits/api/list-credits";
import { LotsCard } from "../../features/plans/lots-card";
import { lotsQueryOptions } from "../../lib/api/list-lots";
import { toolsQueryOptions } from "../../lib/api/list-tools";
import { loadConsoleData } from "../../lib/console-data";
import "../../features/credits/credits.css";

/** The user info, every credit (unfiltered), the payment methods, the lots and the catalog, at once (decision 037). */
export function clientLoader() {
  return loadConsoleData((client, token) => [
    client.prefetchInfiniteQuery(creditsQueryOptions({}, token)),
    client.prefetchQuery(paymentMethodsQueryOptions()),
    client.prefetchQuery(lotsQueryOptions(token)),
    client.prefetchQuery(toolsQueryOptions()),
  ]);
}

/**
 * Prepaying: redeem a code, pay online where enabled, the free quotas and packages that pay for
 * calls before the balance (and buying one from it), and every credit with its CSV export.
 */
export default function ConsoleChargeDetailsPage() {
  const t = useT();
  // Online top-up is promised only where the site has a payment method (none on the embedded defaults).
  const methods = useQuery(paymentMethodsQueryOptions()).data?.methods;
  return (
    <section data-testid="console-charge-details">
      <Typography.Title level={2}>{t("nav.chargeDetails")}</Typography.Title>
      <Typography.Paragraph type="secondary">{t(methods && methods.length === 0 ? "credits.introNoOnline" : "credits.intro")}</Typography.Paragraph>
      <ShownWhenLoaded>
        <Space direction="vertical" size="large" style={{ width: "100%" }}>
          <RedeemForm />
          <TopUpCard />
          <LotsCard />
          <CreditsHistory />
        </Space>
      </ShownWhenLoaded>
    </section>
  );
}
