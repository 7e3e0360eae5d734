import { useQuery } from "@tanstack/react-query";
import { Card, Empty, Segmented, Skeleton, Typography } from "antd";
import { lazy, Suspense, useState } from "react";
import { useT } from "../../i18n";
import { loadChunk } from "../../lib/chunk-reload";
import { useSession } from "../../lib/session-store";
import { siteConfig } from "../../lib/site-config";
import { usageQueryOptions } from "./api/get-usage";
import type { UsageMetric } from "./usage-chart";
import { UsageChartPlaceholder } from "./usage-chart-box";

const UsageChart = lazy(() => loadChunk(() => import("./usage-chart")));

/** Calls and spend per day over the last 30 days; an empty state until the first charged call. */
export function UsagePanel() {
  const t = useT();
  const token = useSession((s) => s.token);
  const usage = useQuery(usageQueryOptions(token));
  const [metric, setMetric] = useState<UsageMetric>("calls");
  const data = usage.data;
  const empty = data !== undefined && data.totals.calls === 0;
  return (
    <Card
      title={t("account.usageTitle")}
      data-testid="usage-panel"
      extra={
        data && !empty ? (
          <Segmented<UsageMetric>
            size="small"
            value={metric}
            onChange={setMetric}
            options={[
              { value: "calls", label: t("account.calls") },
              { value: "spend", label: t("account.spend") },
            ]}
          />
        ) : null
      }
    >
      {!data ? (
        <Skeleton active paragraph={{ rows: 4 }} />
      ) : empty ? (
        <Empty description={t("account.usageEmpty")} data-testid="usage-empty">
          <a href="/docs/quickstart.html">{t("account.quickstart")}</a>
        </Empty>
      ) : (
        <>
          <Typography.Paragraph data-testid="usage-totals">
            {t("account.usageTotals", { calls: data.totals.calls, spend: `${siteConfig.currencySymbol}${data.totals.spend}` })}
          </Typography.Paragraph>
          <Suspense fallback={<UsageChartPlaceholder />}>
            <UsageChart days={data.days} metric={metric} />
          </Suspense>
        </>
      )}
    </Card>
  );
}
