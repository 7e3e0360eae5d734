import type { ReactNode } from "react";

export const CHART_WIDTH = 720;
export const CHART_HEIGHT = 180;
export const CHART_MARGIN = 16;
export const CHART_VIEW_WIDTH = CHART_WIDTH + 2 * CHART_MARGIN;
export const AXIS_HEIGHT_PX = 20;
/** The tallest the chart is drawn: a wrapper this wide keeps the SVG filling its width, so the HTML labels below line up with its bars. */
const MAX_HEIGHT_PX = 240;

/** The usage chart's box, in the console's own chunk: the chart draws in it, and its placeholder takes the same size. */
export function UsageChartBox({ children }: { children: ReactNode }) {
  return <div style={{ maxWidth: (MAX_HEIGHT_PX * CHART_VIEW_WIDTH) / CHART_HEIGHT, margin: "0 auto" }}>{children}</div>;
}

/** Stands where the chart will be while its code loads, as tall as the chart, so nothing below moves when it arrives. */
export function UsageChartPlaceholder() {
  return (
    <UsageChartBox>
      <div data-testid="usage-chart-placeholder" style={{ aspectRatio: `${CHART_VIEW_WIDTH} / ${CHART_HEIGHT}`, background: "#f1f5f9", borderRadius: 4 }} />
      <div style={{ height: AXIS_HEIGHT_PX }} />
    </UsageChartBox>
  );
}
