import { Col, Row, Typography } from "antd";
import { useT } from "../../i18n";
import { ShownWhenLoaded } from "../../components/shown-when-loaded";
import { useSession } from "../../lib/session-store";
import { AccountSummary } from "../../features/account/account-summary";
import { ReferralCard } from "../../features/account/referral-card";
import { RunwayCard } from "../../features/account/runway-card";
import { UsagePanel } from "../../features/account/usage-panel";
import { AlertsCard } from "../../features/alerts/alerts-card";
import { alertsQueryOptions } from "../../features/alerts/api/alerts";
import { referralsQueryOptions } from "../../features/account/api/get-referrals";
import { runwayQueryOptions } from "../../features/account/api/get-runway";
import { usageQueryOptions } from "../../features/account/api/get-usage";
import { loadConsoleData } from "../../lib/console-data";

/** The user info and every card's data, all at once (decision 037). */
export function clientLoader() {
  return loadConsoleData((client, token) => [
    client.prefetchQuery(runwayQueryOptions(token)),
    client.prefetchQuery(usageQueryOptions(token)),
    client.prefetchQuery(referralsQueryOptions(token)),
    client.prefetchQuery(alertsQueryOptions(token)),
  ]);
}

export default function ConsoleInfoPage() {
  const t = useT();
  const userInfo = useSession((s) => s.userInfo);
  return (
    <section data-testid="console-info">
      <Typography.Title level={2}>{t("nav.info")}</Typography.Title>
      <Typography.Paragraph type="secondary">{t("account.intro")}</Typography.Paragraph>
      <ShownWhenLoaded ready={userInfo !== null}>
        <Row gutter={[16, 16]}>
          <Col span={24}>
            <AccountSummary />
          </Col>
          <Col span={24}>
            <RunwayCard />
          </Col>
          <Col xs={24} xl={14}>
            <UsagePanel />
          </Col>
          <Col xs={24} xl={10}>
            <ReferralCard />
          </Col>
          <Col span={24}>
            <AlertsCard />
          </Col>
        </Row>
      </ShownWhenLoaded>
    </section>
  );
}
