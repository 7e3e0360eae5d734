import { useState } from "react";
import { useInfiniteQuery } from "@tanstack/react-query";
import { Button, Card, Input, Space, Table, Tag, Typography } from "antd";
import type { ChargeRow, ChargeStatus } from "#shared/money-api";
import { translate, useLanguage, useT, type MessageKey } from "../../i18n";
import { toast } from "../../lib/toast";
import { rangeFromDays, type DateRange } from "../../lib/date-range";
import { downloadFile } from "../../lib/download";
import { withCurrency } from "../../lib/money-format";
import { CHARGES_CSV_PATH, chargesQueryOptions } from "./api/list-charges";

const STATUS_COLORS: Record<ChargeStatus, string> = { succeeded: "green", pending: "gold", closed: "default" };

/** Every credit, newest first, with a date filter, its total, "load more" and the CSV of the same rows. */
export function ChargesHistory() {
  const t = useT();
  const language = useLanguage((s) => s.language);
  const [fromDay, setFromDay] = useState("");
  const [toDay, setToDay] = useState("");
  const [exporting, setExporting] = useState(false);
  const range: DateRange | null = rangeFromDays(fromDay, toDay);
  const query = useInfiniteQuery({ ...chargesQueryOptions(range ?? {}), enabled: range !== null });
  const rows = query.data?.pages.flatMap((p) => p.items) ?? [];
  const total = query.data?.pages[0]?.total;

  const methodLabel = (method: string) => {
    const key = `charges.methods.${method}` as MessageKey;
    const label = translate(language, key);
    return label === key ? method : label;
  };

  const exportCsv = async () => {
    if (!range) return;
    setExporting(true);
    try {
      await downloadFile(CHARGES_CSV_PATH, { ...range }, `charges-${new Date().toISOString().slice(0, 10)}.csv`);
    } catch {
      toast("error", t("charges.exportFailed"));
    } finally {
      setExporting(false);
    }
  };

  return (
    <Card title={t("charges.historyTitle")} data-testid="charges-history">
      <Space wrap className="charges-filter" align="end">
        <label>
          <span className="charges-filter-label">{t("charges.from")}</span>
          <Input type="date" value={fromDay} onChange={(e) => setFromDay(e.target.value)} data-testid="charges-from" />
        </label>
        <label>
          <span className="charges-filter-label">{t("charges.to")}</span>
          <Input type="date" value={toDay} onChange={(e) => setToDay(e.target.value)} data-testid="charges-to" />
        </label>
        <Button
          onClick={() => {
            setFromDay("");
            setToDay("");
          }}
          disabled={!fromDay && !toDay}
        >
          {t("charges.clearFilter")}
        </Button>
        <Button onClick={() => void exportCsv()} loading={exporting} disabled={!range} data-testid="charges-export">
          {t("charges.exportCsv")}
        </Button>
      </Space>
      {range === null ? (
        <Typography.Paragraph type="danger">{t("charges.rangeInvalid")}</Typography.Paragraph>
      ) : total !== undefined ? (
        <Typography.Paragraph strong data-testid="charges-total">
          {t("charges.total", { amount: withCurrency(total) })}
        </Typography.Paragraph>
      ) : null}
      <Table<ChargeRow>
        rowKey="id"
        dataSource={rows}
        loading={query.isLoading}
        pagination={false}
        locale={{ emptyText: t("charges.empty") }}
        scroll={{ x: true }}
        data-testid="charges-table"
        columns={[
          { title: t("charges.columns.time"), dataIndex: "time", render: (time: string) => new Date(time).toLocaleString(language) },
          { title: t("charges.columns.method"), dataIndex: "method", render: methodLabel },
          { title: t("charges.columns.amount"), dataIndex: "amount", align: "right", render: withCurrency },
          {
            title: t("charges.columns.status"),
            dataIndex: "status",
            render: (status: ChargeStatus) => <Tag color={STATUS_COLORS[status]}>{t(`charges.statuses.${status}`)}</Tag>,
          },
          { title: t("charges.columns.reference"), dataIndex: "reference", render: (ref: string) => <Typography.Text copyable={{ text: ref }}>{ref}</Typography.Text> },
        ]}
      />
      {query.hasNextPage ? (
        <div className="charges-more">
          <Button onClick={() => void query.fetchNextPage()} loading={query.isFetchingNextPage} data-testid="charges-load-more">
            {t("charges.loadMore")}
          </Button>
        </div>
      ) : null}
    </Card>
  );
}
