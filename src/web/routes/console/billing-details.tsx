import { Typography } from "antd";
import { useT } from "../../i18n";
import { ShownWhenLoaded } from "../../components/shown-when-loaded";
import { BillingHistory } from "../../features/billing/billing-history";

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
