import { useState } from "react";
import { useInfiniteQuery } from "@tanstack/react-query";
import { Button, Card, Input, Space, Table, Tag, Typography } from "antd";
import type { CreditRow, CreditStatus } from "#shared/money-api";
import { translate, useLanguage, useT, type MessageKey } from "../../i18n";
import { useSession } from "../../lib/session-store";
import { toast } from "../../lib/toast";
import { rangeFromDays, type DateRange } from "../../lib/date-range";
import { downloadFile, exportFilename } from "../../lib/download";
import { withCurrency } from "../../lib/money-format";
import { CREDITS_CSV_PATH, creditsQueryOptions } from "./api/list-credits";
import { useAmountBesideTime } from "../../components/amount-beside-time";
import { TableTime } from "../../components/table-time";

const STATUS_COLORS: Record<CreditStatus, string> = { succeeded: "green", pending: "gold", closed: "default" };

/** Every credit, newest first, with a date filter, its total, "load more" and the CSV of the same rows. */
export function CreditsHistory() {
  const t = useT();
  const language = useLanguage((s) => s.language);
  const token = useSession((s) => s.token);
  const [fromDay, setFromDay] = useState("");
  const [toDay, setToDay] = useState("");
  const [exporting, setExporting] = useState(false);
  const range: DateRange | null = rangeFromDays(fromDay, toDay);
  const query = useInfiniteQuery({ ...creditsQueryOptions(range ?? {}, token), enabled: range !== null });
  const rows = query.data?.pages.flatMap((p) => p.items) ?? [];
  const total = query.data?.pages[0]?.total;

  const methodLabel = (method: string) => {
    const key = `credits.methods.${method}` as MessageKey;
    const label = translate(language, key);
    return label === key ? method : label;
  };

  const exportCsv = async () => {
    if (!range) return;
    setExporting(true);
    try {
      await downloadFile(CREDITS_CSV_PATH, { ...range }, exportFilename("credits"));
    } catch {
      toast("error", t("credits.exportFailed"));
    } finally {
      setExporting(false);
    }
  };

  const columns = useAmountBesideTime<CreditRow>([
    // On a phone the table scrolls sideways under its time column, which stays.
    { title: t("credits.columns.time"), dataIndex: "time", fixed: "left", render: (time: string) => <TableTime at={time} /> },
    { title: t("credits.columns.method"), dataIndex: "method", render: methodLabel },
    { title: t("credits.columns.amount"), dataIndex: "amount", align: "right", render: withCurrency },
    {
      title: t("credits.columns.status"),
      dataIndex: "status",
      render: (status: CreditStatus) => <Tag color={STATUS_COLORS[status]}>{t(`credits.statuses.${status}`)}</Tag>,
    },
    { title: t("credits.columns.reference"), dataIndex: "reference", render: (ref: string) => <Typography.Text copyable={{ text: ref }}>{ref}</Typography.Text> },
  ]);

  return (
    <Card title={t("credits.historyTitle")} data-testid="credits-history">
      <Space wrap className="credits-filter" align="end">
        <label>
          <span className="credits-filter-label">{t("credits.from")}</span>
          <Input type="date" value={fromDay} onChange={(e) => setFromDay(e.target.value)} data-testid="credits-from" />
        </label>
        <label>
          <span className="credits-filter-label">{t("credits.to")}</span>
          <Input type="date" value={toDay} onChange={(e) => setToDay(e.target.value)} data-testid="credits-to" />
        </label>
        <Button
          onClick={() => {
            setFromDay("");
            setToDay("");
          }}
          disabled={!fromDay && !toDay}
        >
          {t("credits.clearFilter")}
        </Button>
        <Button onClick={() => void exportCsv()} loading={exporting} disabled={!range} data-testid="credits-export">
          {t("credits.exportCsv")}
        </Button>
      </Space>
      {range === null ? (
        <Typography.Paragraph type="danger">{t("credits.rangeInvalid")}</Typography.Paragraph>
      ) : total !== undefined ? (
        <Typography.Paragraph strong data-testid="credits-total">
          {t("credits.total", { amount: withCurrency(total) })}
        </Typography.Paragraph>
      ) : null}
      <Table<CreditRow>
        rowKey="id"
        dataSource={rows}
        loading={query.isLoading}
        pagination={false}
        locale={{ emptyText: t("credits.empty") }}
        scroll={{ x: "max-content" }}
        data-testid="credits-table"
        columns={columns}
      />
      {query.hasNextPage ? (
        <div className="credits-more">
          <Button onClick={() => void query.fetchNextPage()} loading={query.isFetchingNextPage} data-testid="credits-load-more">
            {t("credits.loadMore")}
          </Button>
        </div>
      ) : null}
    </Card>
  );
}
