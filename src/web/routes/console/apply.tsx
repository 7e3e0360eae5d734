import { useQuery } from "@tanstack/react-query";
import { Alert, Card, Skeleton, Space, Typography } from "antd";
import { useSearchParams } from "react-router";
import { useT } from "../../i18n";
import { ShownWhenLoaded } from "../../components/shown-when-loaded";
import { useToolName } from "../../lib/api/list-tools";
import { useSession } from "../../lib/session-store";
import { applicationsQueryOptions } from "../../features/applications/api/list-applications";
import { loadConsoleData } from "../../lib/console-data";
import { ApplicationForm } from "../../features/applications/application-form";
import { ApplicationsTable } from "../../features/applications/applications-table";

/** The user info and the applications, at once (decision 037). */
export function clientLoader() {
  return loadConsoleData((client, token) => [client.prefetchQuery(applicationsQueryOptions(token))]);
}

/** Access applications: apply for a tool that needs approval, and follow each application's review. */
export default function ConsoleApplyPage() {
  const t = useT();
  const token = useSession((s) => s.token);
  const [params] = useSearchParams();
  const query = useQuery(applicationsQueryOptions(token));
  const tools = query.data?.tools ?? [];
  const open = tools.some((tool) => !tool.hasAccess && !tool.pending);
  const toolName = useToolName();
  const underReview = tools.filter((tool) => tool.pending).map((tool) => toolName(tool.id, tool.name));

  const form = !query.data ? (
    <Skeleton active />
  ) : tools.length === 0 ? (
    <Typography.Text type="secondary">{t("applications.noTools")}</Typography.Text>
  ) : open ? (
    <ApplicationForm tools={tools} preferredTool={params.get("tool")} />
  ) : underReview.length > 0 ? (
    <Alert type="info" showIcon title={t("applications.underReview", { tools: underReview.join(", ") })} data-testid="nothing-to-apply" data-state="under-review" />
  ) : (
    <Alert type="success" showIcon title={t("applications.allGranted")} data-testid="nothing-to-apply" data-state="all-granted" />
  );

  return (
    <section data-testid="console-apply">
      <Typography.Title level={2}>{t("nav.apply")}</Typography.Title>
      <Typography.Paragraph type="secondary">{t("applications.intro")}</Typography.Paragraph>
      <ShownWhenLoaded>
        <Space orientation="vertical" size="large" style={{ width: "100%" }}>
          <Card title={t("applications.formTitle")}>{form}</Card>
          <Card title={t("applications.listTitle")}>
            <ApplicationsTable applications={query.data?.applications ?? []} loading={query.isPending} />
          </Card>
        </Space>
      </ShownWhenLoaded>
    </section>
  );
}
