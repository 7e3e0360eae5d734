import type { UsageDay } from "#shared/account";
import { parseMoney } from "#shared/money";
import { useT } from "../../i18n";
import { siteConfig } from "../../lib/site-config";

export type UsageMetric = "calls" | "spend";

const WIDTH = 720;
const HEIGHT = 200;
const AXIS = 22;

/** Bar heights in thousandths of the tallest, from exact amounts (spend is bigint micro-units). */
function heights(days: UsageDay[], metric: UsageMetric): number[] {
  const values = days.map((d) => (metric === "calls" ? BigInt(d.calls) : parseMoney(d.spend)));
  const max = values.reduce((a, b) => (b > a ? b : a), 0n);
  return values.map((v) => (max === 0n ? 0 : Number((v * 1000n) / max) / 1000));
}

/** A plain SVG bar chart: small enough that no chart library is needed. */
export default function UsageChart({ days, metric }: { days: UsageDay[]; metric: UsageMetric }) {
  const t = useT();
  const slot = WIDTH / days.length;
  const plot = HEIGHT - AXIS;
  const labelEvery = Math.ceil(days.length / 6);
  return (
    <svg
      viewBox={`-16 0 ${WIDTH + 32} ${HEIGHT}`}
      width="100%"
      role="img"
      aria-label={t("account.usageChart")}
      data-testid="usage-chart"
      style={{ display: "block", maxHeight: 260 }}
    >
      <line x1={0} x2={WIDTH} y1={plot} y2={plot} stroke="#cbd5e1" />
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
            {i % labelEvery === 0 ? (
              <text x={i * slot + slot / 2} y={HEIGHT - 6} fontSize={11} textAnchor="middle" fill="#475569">
                {day.date.slice(5)}
              </text>
            ) : null}
          </g>
        );
      })}
    </svg>
  );
}
