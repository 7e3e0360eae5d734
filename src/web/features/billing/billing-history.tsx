import { useState } from "react";
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { Button, Card, Input, Select, Space, Table, Typography } from "antd";
import type { BillingRow } from "#shared/billing";
import { useT, type Translate } from "../../i18n";
import { keysQueryOptions } from "../../lib/api/list-keys";
import { toolsQueryOptions, useToolName } from "../../lib/api/list-tools";
import { rangeFromDays } from "../../lib/date-range";
import { downloadFile, exportFilename } from "../../lib/download";
import { shortRequestId } from "#shared/request-ids";
import { withCurrency } from "../../lib/money-format";
import { useSession } from "../../lib/session-store";
import { toast } from "../../lib/toast";
import { LlmCharge } from "./llm-charge";
import { PaidBy } from "./paid-by";
import { PurchaseNote } from "./purchase-note";
import { BILLING_CSV_PATH, billingQueryOptions, type BillingFilter } from "./api/list-billing";
import { useAmountBesideTime } from "../../components/amount-beside-time";
import { TableTime } from "../../components/table-time";

/** `1 call`, `2 calls`: the catalogues hold no plural forms, so the singular is a message of its own. */
const counted = (t: Translate, noun: "callCount" | "packageCount", count: number): string =>
  count === 1 ? t(`billing.${noun}.one`) : t(`billing.${noun}.other`, { count });

/** One row per charged call or package bought, filtered by dates, tool and key, with the filter's total, "load more" and CSV. */
export function BillingHistory() {
  const t = useT();
  const token = useSession((s) => s.token);
  const [fromDay, setFromDay] = useState("");
  const [toDay, setToDay] = useState("");
  const [toolId, setToolId] = useState<string | undefined>();
  const [keyId, setKeyId] = useState<number | undefined>();
  const [exporting, setExporting] = useState(false);
  const range = rangeFromDays(fromDay, toDay);
  const filter: BillingFilter | null = range ? { ...range, toolId, keyId } : null;
  const query = useInfiniteQuery({ ...billingQueryOptions(filter ?? {}, token), enabled: filter !== null });
  const tools = useQuery(toolsQueryOptions());
  const keys = useQuery({ ...keysQueryOptions(token), select: (list) => list.keys });
  const rows = query.data?.pages.flatMap((p) => p.items) ?? [];
  const toolName = useToolName();
  const total = query.data?.pages[0]?.total;

  const exportCsv = async () => {
    if (!filter) return;
    setExporting(true);
    try {
      await downloadFile(BILLING_CSV_PATH, { ...filter }, exportFilename("billing"));
    } catch {
      toast("error", t("billing.exportFailed"));
    } finally {
      setExporting(false);
    }
  };

  const columns = useAmountBesideTime<BillingRow>([
    // On a phone the table scrolls sideways under its time column, which stays.
    { title: t("billing.columns.time"), dataIndex: "time", fixed: "left", render: (time: string) => <TableTime at={time} /> },
    {
      title: t("billing.columns.tool"),
      dataIndex: "toolId",
      render: (id: string, row) => (
        <>
          {toolName(id)}
          {row.purchase ? <PurchaseNote purchase={row.purchase} toolId={id} /> : null}
        </>
      ),
    },
    { title: t("billing.columns.key"), dataIndex: "keyName", render: (name: string | null) => name ?? "—" },
    {
      title: t("billing.columns.units"),
      dataIndex: "units",
      align: "right",
      render: (units: number, row) => (row.llm ? <LlmCharge llm={row.llm} /> : units),
    },
    { title: t("billing.columns.amount"), dataIndex: "amount", align: "right", render: withCurrency },
    { title: t("billing.columns.paidBy"), dataIndex: "paidBy", render: (parts: BillingRow["paidBy"], row: BillingRow) => <PaidBy parts={parts} toolId={row.toolId} /> },
    {
      title: t("billing.columns.requestId"),
      dataIndex: "requestId",
      render: (id: string | null) => (id === null ? "—" : <Typography.Text copyable={{ text: id }} code>{shortRequestId(id)}</Typography.Text>),
    },
  ]);

  return (
    <Card data-testid="billing-history">
      <Space wrap align="end" className="billing-filter">
        <label>
          <div>{t("billing.from")}</div>
          <Input type="date" value={fromDay} onChange={(e) => setFromDay(e.target.value)} data-testid="billing-from" />
        </label>
        <label>
          <div>{t("billing.to")}</div>
          <Input type="date" value={toDay} onChange={(e) => setToDay(e.target.value)} data-testid="billing-to" />
        </label>
        <label>
          <div>{t("billing.tool")}</div>
          <Select
            allowClear
            style={{ minWidth: 160 }}
            placeholder={t("billing.allTools")}
            value={toolId}
            onChange={setToolId}
            options={(tools.data ?? []).map((tool) => ({ value: tool.id, label: toolName(tool.id) }))}
            data-testid="billing-tool"
          />
        </label>
        <label>
          <div>{t("billing.key")}</div>
          <Select
            allowClear
            style={{ minWidth: 160 }}
            placeholder={t("billing.allKeys")}
            value={keyId}
            onChange={setKeyId}
            options={(keys.data ?? []).map((key) => ({ value: key.id, label: key.name }))}
            data-testid="billing-key"
          />
        </label>
        <Button onClick={() => void exportCsv()} loading={exporting} disabled={!filter} data-testid="billing-export">
          {t("billing.exportCsv")}
        </Button>
      </Space>
      {filter === null ? (
        <Typography.Paragraph type="danger">{t("billing.rangeInvalid")}</Typography.Paragraph>
      ) : total ? (
        <Typography.Paragraph strong data-testid="billing-total">
          {total.purchases > 0
            ? t("billing.totalWithPurchases", { calls: counted(t, "callCount", total.calls), purchases: counted(t, "packageCount", total.purchases), amount: withCurrency(total.amount) })
            : t("billing.total", { calls: counted(t, "callCount", total.calls), amount: withCurrency(total.amount) })}
        </Typography.Paragraph>
      ) : null}
      <Table<BillingRow>
        rowKey={(row) => `${row.kind}-${row.id}`}
        dataSource={rows}
        loading={query.isLoading}
        pagination={false}
        scroll={{ x: "max-content" }}
        locale={{ emptyText: t("billing.empty") }}
        data-testid="billing-table"
        columns={columns}
      />
      {query.hasNextPage ? (
        <div style={{ textAlign: "center", marginTop: 16 }}>
          <Button onClick={() => void query.fetchNextPage()} loading={query.isFetchingNextPage} data-testid="billing-load-more">
            {t("billing.loadMore")}
          </Button>
        </div>
      ) : null}
    </Card>
  );
}
