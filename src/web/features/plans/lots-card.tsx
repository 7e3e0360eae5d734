import { useEffect, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { Card, Space, Switch, Table, Tag, Typography } from "antd";
import { beijingDateTime } from "#shared/beijing-time";
import type { PublicTool } from "#shared/catalog";
import type { LotView } from "#shared/plans";
import { useLanguage, useT, type MessageKey, type Translate } from "../../i18n";
import { toolsQueryOptions, usePackageName, useToolName } from "../../lib/api/list-tools";
import { withCurrency } from "../../lib/money-format";
import { useSession } from "../../lib/session-store";
import { lotsQueryOptions } from "../../lib/api/list-lots";
import { BuyPackage } from "./buy-package";
import { unitsText } from "../../lib/units-text";

const MINUTE = 60_000;

/** The current time, again every minute: what the countdowns count from. */
function useMinuteClock(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), MINUTE);
    return () => window.clearInterval(timer);
  }, []);
  return now;
}

/** How long until `expiresAt`, in whole units: days and hours, then hours and minutes, then minutes (at least 1). */
function countdown(t: Translate, expiresAt: string, now: number): string {
  const minutes = Math.max(1, Math.floor((Date.parse(expiresAt) - now) / MINUTE));
  if (minutes >= 24 * 60) return t("plans.countdown.days", { days: Math.floor(minutes / (24 * 60)), hours: Math.floor((minutes % (24 * 60)) / 60) });
  if (minutes >= 60) return t("plans.countdown.hours", { hours: Math.floor(minutes / 60), minutes: minutes % 60 });
  return t("plans.countdown.minutes", { minutes });
}

/** Why a lot does not pay for calls (the server's `usable` says whether it does); null while it does. */
function lotState(lot: LotView, now: number): MessageKey | null {
  if (lot.usable && Date.parse(lot.expiresAt) > now) return null;
  if (lot.refundedAt) return "plans.state.refunded";
  if (lot.unitsLeft === 0) return "plans.state.usedUp";
  if (Date.parse(lot.expiresAt) <= now) return "plans.state.expired";
  if (Date.parse(lot.effectiveAt) > now) return "plans.state.notYet";
  return null;
}

/** Presets whose text on their own background passes WCAG AA contrast (antd's green does not). */
const SOURCE_COLORS: Record<LotView["source"], string> = { free: "geekblue", package: "blue", grant: "purple" };

/**
 * The user's free quotas and packages, in the order calls draw them: tool, source, units left of
 * the total, expiry in Beijing time with a countdown, and where each came from; then buying one.
 */
export function LotsCard() {
  const t = useT();
  const token = useSession((s) => s.token);
  const language = useLanguage((s) => s.language);
  const tools = useQuery(toolsQueryOptions()).data;
  const toolName = useToolName();
  const lots = useQuery(lotsQueryOptions(token));
  // Never before the list was read: a lot bought a moment ago has started.
  const now = Math.max(useMinuteClock(), lots.dataUpdatedAt);
  const [showAll, setShowAll] = useState(false);
  const toolOf = (id: string): PublicTool | undefined => tools?.find((tool) => tool.id === id);
  const shown = (lots.data ?? []).filter((lot) => showAll || lot.usable);

  const packageName = usePackageName();
  const lotName = (lot: LotView) => packageName(lot.toolId, lot.packageId, lot.name);
  const origin = (lot: LotView) => {
    if (lot.source === "free") return t("plans.origin.free", { from: beijingDateTime(lot.effectiveAt) });
    if (lot.source === "package") return t("plans.origin.package", { price: withCurrency(lot.pricePaid) });
    return t("plans.origin.grant");
  };

  return (
    <Card title={t("plans.title")} data-testid="lots-card">
      <Typography.Paragraph type="secondary">{t("plans.intro")}</Typography.Paragraph>
      <Space style={{ marginBottom: 12 }}>
        <Switch id="lots-show-all" size="small" checked={showAll} onChange={setShowAll} data-testid="lots-show-all" />
        <label htmlFor="lots-show-all">{t("plans.showAll")}</label>
      </Space>
      <Table<LotView>
        rowKey={(lot) => `${lot.toolId}:${lot.source}:${lot.id ?? lot.effectiveAt}`}
        dataSource={shown}
        loading={lots.isLoading}
        pagination={false}
        // Each column as wide as its content, the table scrolling on a phone: squeezed, Chinese
        // breaks between any two characters, down to a character a line.
        scroll={{ x: "max-content" }}
        size="small"
        locale={{ emptyText: t("plans.empty") }}
        data-testid="lots-table"
        columns={[
          { title: t("plans.columns.tool"), dataIndex: "toolId", render: (id: string) => toolName(id) },
          {
            title: t("plans.columns.source"),
            dataIndex: "source",
            render: (source: LotView["source"], lot) => (
              <Space size={4} wrap>
                <Tag color={SOURCE_COLORS[source]}>{t(`plans.sources.${source}`)}</Tag>
                {source === "free" ? null : <span>{lotName(lot)}</span>}
              </Space>
            ),
          },
          {
            title: t("plans.columns.left"),
            key: "left",
            align: "right",
            render: (_: unknown, lot) => (
              <span style={{ whiteSpace: "nowrap" }}>
                {lot.unitsLeft.toLocaleString("en-US")} / {unitsText(t, lot.unitsGranted, toolOf(lot.toolId), language)}
              </span>
            ),
          },
          {
            title: t("plans.columns.expires"),
            dataIndex: "expiresAt",
            render: (expiresAt: string, lot) => {
              const state = lotState(lot, now);
              return (
                <div style={{ whiteSpace: "nowrap" }}>
                  <div>{beijingDateTime(expiresAt)}</div>
                  {state ? <Tag>{t(state)}</Tag> : <Typography.Text type="secondary">{countdown(t, expiresAt, now)}</Typography.Text>}
                </div>
              );
            },
          },
          { title: t("plans.columns.origin"), key: "origin", render: (_: unknown, lot) => origin(lot) },
        ]}
      />
      <BuyPackage />
    </Card>
  );
}
