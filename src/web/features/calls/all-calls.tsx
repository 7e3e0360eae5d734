import { useState } from "react";
import { useSearchParams } from "react-router";
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { Button, Card, Input, InputNumber, Select, Space, Table, Typography } from "antd";
import { beijingDate } from "#shared/beijing-time";
import { CALL_OUTCOMES, STATUS_CLASSES } from "#shared/call-outcomes";
import type { CallRow } from "#shared/calls";
import { shortRequestId } from "#shared/request-ids";
import { useT } from "../../i18n";
import { keysQueryOptions } from "../../lib/api/list-keys";
import { toolsQueryOptions, useToolName } from "../../lib/api/list-tools";
import { rangeFromDays } from "../../lib/date-range";
import { PHONE_SCREEN, useMediaQuery } from "../../lib/use-media-query";
import { downloadFile, exportFilename } from "../../lib/download";
import { withCurrency } from "../../lib/money-format";
import { useSession } from "../../lib/session-store";
import { toast } from "../../lib/toast";
import { CALLS_CSV_PATH, callsQueryOptions, type CallsFilter } from "./api/list-calls";
import { CallDrawer } from "./call-drawer";
import { notChargedText } from "./not-charged";
import { OutcomeTag } from "./outcome-tag";
import { paramsWithView, viewFromParams, type CallsView } from "./view-params";
import { useAmountBesideTime } from "../../components/amount-beside-time";
import { fitBesideFixedColumns } from "../../components/fit-beside-fixed-columns";
import { TableTime } from "../../components/table-time";

/** The filter the API is asked for: the view's, less the open call; null when the dates are the wrong way round. */
export function callsFilterOf(view: CallsView): CallsFilter | null {
  const range = rangeFromDays(view.fromDay, view.toDay);
  if (!range) return null;
  return { ...range, toolId: view.toolId, keyId: view.keyId, outcome: view.outcome, status: view.status, charged: view.charged, slowerThanMs: view.slowerThanMs };
}

/**
 * Every call of the user's keys, whatever its outcome, filtered by what the URL says (so a view
 * can be shared and reloaded), with a request-id box that finds one call on the server and a
 * drawer with its detail.
 */
export function AllCalls() {
  const t = useT();
  const token = useSession((s) => s.token);
  const [params, setParams] = useSearchParams();
  const view = viewFromParams(params);
  const change = (part: Partial<CallsView>) => setParams(paramsWithView(params, { ...view, ...part }), { replace: true });
  const [typedId, setTypedId] = useState(view.requestId ?? "");
  const [exporting, setExporting] = useState(false);
  const filter = callsFilterOf(view);
  const query = useInfiniteQuery({ ...callsQueryOptions(filter ?? {}, token), enabled: filter !== null });
  const tools = useQuery(toolsQueryOptions());
  const keys = useQuery({ ...keysQueryOptions(token), select: (list) => list.keys });
  const rows = query.data?.pages.flatMap((p) => p.items) ?? [];
  const retentionDays = query.data?.pages[0]?.retentionDays;
  const toolName = useToolName();
  // The date fields offer no day the server no longer keeps (it refuses such a range).
  const [openedAt] = useState(() => Date.now());
  const oldestDay = retentionDays ? beijingDate(new Date(openedAt - (retentionDays - 1) * 86_400_000)) : undefined;

  const exportCsv = async () => {
    if (!filter) return;
    setExporting(true);
    try {
      await downloadFile(CALLS_CSV_PATH, { ...filter }, exportFilename("calls"));
    } catch {
      toast("error", t("billing.exportFailed"));
    } finally {
      setExporting(false);
    }
  };

  // On a phone the table scrolls sideways under its time column, which stays; the amount stands beside it.
  const phone = useMediaQuery(PHONE_SCREEN);
  const columns = useAmountBesideTime<CallRow>([
    { title: t("calls.columns.time"), dataIndex: "time", fixed: "left", render: (time: string) => <TableTime at={time} /> },
    { title: t("calls.columns.tool"), dataIndex: "toolId", render: (id: string) => toolName(id) },
    { title: t("calls.columns.key"), dataIndex: "keyName" },
    { title: t("calls.columns.outcome"), dataIndex: "outcome", render: (_: unknown, row: CallRow) => <OutcomeTag outcome={row.outcome} status={row.httpStatus} /> },
    { title: t("calls.columns.status"), dataIndex: "httpStatus", align: "right" },
    {
      title: t("calls.columns.amount"),
      dataIndex: "amount",
      render: (_: unknown, row: CallRow) => <span className="call-charge">{notChargedText(t, row) ?? withCurrency(row.amount)}</span>,
    },
    { title: t("calls.columns.took"), dataIndex: "totalMs", align: "right", render: (ms: number) => <span className="nowrap">{ms} ms</span> },
    {
      title: t("calls.columns.requestId"),
      dataIndex: "requestId",
      // The way to a call's detail, kept in view at the right edge where there is room: at a laptop's
      // width it was cut off past the table's edge. On a phone it scrolls with the rest.
      fixed: phone ? undefined : "right",
      render: (id: string) => (
        <Button type="link" size="small" onClick={() => change({ requestId: id })} data-testid="call-open">
          {shortRequestId(id)}
        </Button>
      ),
    },
  ]);

  return (
    <Card data-testid="all-calls">
      {retentionDays ? <Typography.Paragraph type="secondary">{t("calls.intro", { days: retentionDays })}</Typography.Paragraph> : null}
      <Space wrap align="end" className="billing-filter">
        <label>
          <div>{t("calls.requestId")}</div>
          <Input.Search
            allowClear
            style={{ minWidth: 280 }}
            placeholder={t("calls.requestIdPlaceholder")}
            value={typedId}
            onChange={(e) => setTypedId(e.target.value)}
            onSearch={(id) => change({ requestId: id.trim() || undefined })}
            data-testid="calls-request-id"
          />
        </label>
        <label>
          <div>{t("billing.from")}</div>
          <Input type="date" min={oldestDay} value={view.fromDay} onChange={(e) => change({ fromDay: e.target.value })} data-testid="calls-from" />
        </label>
        <label>
          <div>{t("billing.to")}</div>
          <Input type="date" min={oldestDay} value={view.toDay} onChange={(e) => change({ toDay: e.target.value })} data-testid="calls-to" />
        </label>
        <label>
          <div>{t("billing.tool")}</div>
          <Select
            allowClear
            style={{ minWidth: 140 }}
            placeholder={t("billing.allTools")}
            value={view.toolId}
            onChange={(toolId?: string) => change({ toolId })}
            options={(tools.data ?? []).map((tool) => ({ value: tool.id, label: toolName(tool.id) }))}
            data-testid="calls-tool"
          />
        </label>
        <label>
          <div>{t("billing.key")}</div>
          <Select
            allowClear
            style={{ minWidth: 140 }}
            placeholder={t("billing.allKeys")}
            value={view.keyId}
            onChange={(keyId?: number) => change({ keyId })}
            options={(keys.data ?? []).map((key) => ({ value: key.id, label: key.name }))}
            data-testid="calls-key"
          />
        </label>
        <label>
          <div>{t("calls.outcome")}</div>
          <Select
            allowClear
            showSearch={{ optionFilterProp: ["label", "value"] }}
            style={{ minWidth: 200 }}
            placeholder={t("calls.allOutcomes")}
            value={view.outcome}
            onChange={(outcome?: CallsView["outcome"]) => change({ outcome })}
            options={CALL_OUTCOMES.map((code) => ({ value: code, label: t(`calls.outcomes.${code}`) }))}
            data-testid="calls-outcome"
          />
        </label>
        <label>
          <div>{t("calls.status")}</div>
          <Select
            allowClear
            style={{ minWidth: 120 }}
            placeholder={t("calls.allStatuses")}
            value={view.status}
            onChange={(status?: CallsView["status"]) => change({ status })}
            options={STATUS_CLASSES.map((code) => ({ value: code, label: code }))}
            data-testid="calls-status"
          />
        </label>
        <label>
          <div>{t("calls.charged")}</div>
          <Select
            allowClear
            style={{ minWidth: 140 }}
            placeholder={t("calls.chargedAny")}
            value={view.charged}
            onChange={(charged?: CallsView["charged"]) => change({ charged })}
            options={[
              { value: "true", label: t("calls.chargedYes") },
              { value: "false", label: t("calls.chargedNo") },
            ]}
            data-testid="calls-charged"
          />
        </label>
        <label>
          <div>{t("calls.slowerThan")}</div>
          <InputNumber
            min={0}
            precision={0}
            value={view.slowerThanMs ?? null}
            onChange={(value) => change({ slowerThanMs: value ?? undefined })}
            data-testid="calls-slower"
          />
        </label>
        <Button onClick={() => void exportCsv()} loading={exporting} disabled={!filter} data-testid="calls-export">
          {t("billing.exportCsv")}
        </Button>
      </Space>
      {filter === null ? <Typography.Paragraph type="danger">{t("billing.rangeInvalid")}</Typography.Paragraph> : null}
      <Table<CallRow>
        rowKey="requestId"
        dataSource={rows}
        loading={query.isLoading}
        pagination={false}
        {...fitBesideFixedColumns(phone)}
        locale={{ emptyText: t("calls.empty") }}
        data-testid="calls-table"
        columns={columns}
      />
      {query.hasNextPage ? (
        <div style={{ textAlign: "center", marginTop: 16 }}>
          <Button onClick={() => void query.fetchNextPage()} loading={query.isFetchingNextPage} data-testid="calls-load-more">
            {t("billing.loadMore")}
          </Button>
        </div>
      ) : null}
      <CallDrawer
        requestId={view.requestId}
        retentionDays={retentionDays}
        toolName={toolName}
        onClose={() => {
          setTypedId("");
          change({ requestId: undefined });
        }}
      />
    </Card>
  );
}
