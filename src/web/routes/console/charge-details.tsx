import { Space, Typography } from "antd";
import { useT } from "../../i18n";
import { ShownWhenLoaded } from "../../components/shown-when-loaded";
import { CreditsHistory } from "../../features/credits/credits-history";
import { RedeemForm } from "../../features/credits/redeem-form";
import { TopUpCard } from "../../features/credits/top-up-card";
import { paymentMethodsQueryOptions } from "../../features/credits/api/get-payment-methods";
import { creditsQueryOptions } from "../../features/credits/api/list-credits";
import { loadConsoleData } from "../../lib/console-data";
import "../../features/credits/credits.css";

/** The user info, every credit (unfiltered) and the payment methods, at once (decision 037). */
export function clientLoader() {
  return loadConsoleData((client, token) => [
    client.prefetchInfiniteQuery(creditsQueryOptions({}, token)),
    client.prefetchQuery(paymentMethodsQueryOptions()),
  ]);
}

/** Top-ups: redeem a code, pay online where enabled, and every credit with its CSV export. */
export default function ConsoleChargeDetailsPage() {
  const t = useT();
  return (
    <section data-testid="console-charge-details">
      <Typography.Title level={2}>{t("nav.chargeDetails")}</Typography.Title>
      <Typography.Paragraph type="secondary">{t("credits.intro")}</Typography.Paragraph>
      <ShownWhenLoaded>
        <Space direction="vertical" size="large" style={{ width: "100%" }}>
          <RedeemForm />
          <TopUpCard />
          <CreditsHistory />
        </Space>
      </ShownWhenLoaded>
    </section>
  );
}
