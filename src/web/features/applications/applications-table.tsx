import { Table, Tag, Typography, type TableColumnsType } from "antd";
import type { Application, ApplicationStatus } from "#shared/applications";
import { useLanguage, useT } from "../../i18n";
import { beijingDateTime } from "#shared/beijing-time";
import { useToolName } from "../../lib/api/list-tools";

const STATUS_COLORS: Record<ApplicationStatus, string> = { pending: "gold", approved: "green", rejected: "red" };

const NO_WRAP = { whiteSpace: "nowrap" } as const;

/** The user's applications, newest first, with the decision and the reviewer's note. */
export function ApplicationsTable({ applications, loading }: { applications: Application[]; loading: boolean }) {
  const t = useT();
  const language = useLanguage((s) => s.language);
  const toolName = useToolName();
  const columns: TableColumnsType<Application> = [
    {
      title: t("applications.columns.tool"),
      key: "tool",
      // A tool's name is short and read whole: on a phone the squeezed column broke it, and its
      // heading, one character a line ("拼" above "音").
      onHeaderCell: () => ({ style: NO_WRAP }),
      onCell: () => ({ style: NO_WRAP }),
      render: (_: unknown, application) => toolName(application.toolId, application.toolName),
    },
    {
      title: t("applications.columns.project"),
      key: "project",
      render: (_: unknown, application) => (
        <>
          <div>{application.companyOrProject}</div>
          <Typography.Paragraph type="secondary" ellipsis={{ rows: 2, tooltip: application.useCase }} className="application-use-case">
            {application.useCase}
          </Typography.Paragraph>
        </>
      ),
    },
    {
      title: t("applications.columns.calls"),
      dataIndex: "expectedMonthlyCalls",
      key: "calls",
      align: "right",
      render: (calls: number) => calls.toLocaleString(language),
    },
    {
      title: t("applications.columns.status"),
      dataIndex: "status",
      key: "status",
      render: (status: ApplicationStatus) => (
        <Tag color={STATUS_COLORS[status]} data-testid="application-status" data-status={status}>
          {t(`applications.statuses.${status}`)}
        </Tag>
      ),
    },
    { title: t("applications.columns.applied"), dataIndex: "createdAt", key: "applied", render: (at: string) => beijingDateTime(at) },
    {
      title: t("applications.columns.reviewed"),
      dataIndex: "reviewedAt",
      key: "reviewed",
      render: (at: string | null) => (at ? beijingDateTime(at) : t("applications.notReviewed")),
    },
    {
      title: t("applications.columns.note"),
      dataIndex: "reviewerNote",
      key: "note",
      render: (note: string | null) => (
        <span className="application-note" data-testid="application-note">
          {note ?? ""}
        </span>
      ),
    },
  ];
  return (
    <Table<Application>
      rowKey="id"
      columns={columns}
      dataSource={applications}
      loading={loading}
      pagination={false}
      // Cells wrap: at laptop widths the reviewer's note must show without a sideways scroll.
      scroll={{ x: true }}
      locale={{ emptyText: t("applications.empty") }}
      onRow={(application) => ({ "data-testid": "application-row", "data-application-id": application.id }) as React.HTMLAttributes<HTMLElement>}
    />
  );
}
