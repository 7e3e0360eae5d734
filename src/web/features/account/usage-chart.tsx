import type { UsageDay } from "#shared/account";
import { parseMoney } from "#shared/money";
import { useT } from "../../i18n";
import { siteConfig } from "../../lib/site-config";
import { AXIS_HEIGHT_PX, CHART_HEIGHT, CHART_MARGIN, CHART_VIEW_WIDTH, CHART_WIDTH, UsageChartBox } from "./usage-chart-box";

export type UsageMetric = "calls" | "spend";

/** Bar heights in thousandths of the tallest, from exact amounts (spend is bigint micro-units). */
function heights(days: UsageDay[], metric: UsageMetric): number[] {
  const values = days.map((d) => (metric === "calls" ? BigInt(d.calls) : parseMoney(d.spend)));
  const max = values.reduce((a, b) => (b > a ? b : a), 0n);
  return values.map((v) => (max === 0n ? 0 : Number((v * 1000n) / max) / 1000));
}

/**
 * A plain SVG bar chart: small enough that no chart library is needed. The dates under it are HTML,
 * so they keep the page's type size: text inside the SVG scales with it, to 5 px on a phone.
 */
export default function UsageChart({ days, metric }: { days: UsageDay[]; metric: UsageMetric }) {
  const t = useT();
  const slot = CHART_WIDTH / days.length;
  const plot = CHART_HEIGHT - 2;
  const labelEvery = Math.ceil(days.length / 6);
  const centre = (i: number) => `${(((CHART_MARGIN + i * slot + slot / 2) / CHART_VIEW_WIDTH) * 100).toFixed(3)}%`;
  return (
    <UsageChartBox>
      <svg viewBox={`${-CHART_MARGIN} 0 ${CHART_VIEW_WIDTH} ${CHART_HEIGHT}`} width="100%" role="img" aria-label={t("account.usageChart")} data-testid="usage-chart" style={{ display: "block" }}>
        <line x1={0} x2={CHART_WIDTH} y1={plot} y2={plot} stroke="#cbd5e1" />
        {heights(days, metric).map((h, i) => {
          const day = days[i]!;
          const barHeight = h > 0 ? Math.max(h * (plot - 8), 1) : 0;
          return (
            <g key={day.date} data-testid="usage-bar" data-date={day.date}>
              <rect x={i * slot + slot * 0.15} width={slot * 0.7} y={plot - barHeight} height={barHeight} rx={2} fill="#0f766e">
                <title>
                  {t("account.usageBar", { date: day.date, calls: day.calls, spend: `${siteConfig.currencySymbol}${day.spend}` })}
                </title>
              </rect>
            </g>
          );
        })}
      </svg>
      {/* Each bar's title names its date for assistive technology; these are for the eye. */}
      <div aria-hidden="true" style={{ position: "relative", height: AXIS_HEIGHT_PX, fontSize: 12, lineHeight: "20px", color: "#475569" }}>
        {days.map((day, i) =>
          i % labelEvery === 0 ? (
            <span key={day.date} data-testid="usage-axis-label" style={{ position: "absolute", left: centre(i), transform: "translateX(-50%)", whiteSpace: "nowrap" }}>
              {day.date.slice(5)}
            </span>
          ) : null,
        )}
      </div>
    </UsageChartBox>
  );
}
