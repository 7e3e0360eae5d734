import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Alert, Button, Card, Form, Input, Space, Table, Tag, Typography, type TableColumnsType } from "antd";
import { useState } from "react";
import { ALERT_EVENT_TYPES, thresholdProblem, WEBHOOK_URL_MAX, webhookUrlShapeProblem, type AlertDelivery, type AlertDeliveryStatus, type AlertSettingsInput } from "#shared/alerts";
import { useT, type MessageKey } from "../../i18n";
import { copyText } from "../../lib/clipboard";
import { refusedField } from "../../lib/http";
import { beijingDateTime } from "#shared/beijing-time";
import { MAX_AMOUNT } from "#shared/money";
import { useSession } from "../../lib/session-store";
import { siteConfig } from "../../lib/site-config";
import { toast } from "../../lib/toast";
import { useFormSubmission } from "../../lib/use-form-submission";
import { alertsQueryKey, alertsQueryOptions, rotateWebhookSecret, saveAlerts, sendTestEvent } from "./api/alerts";

interface AlertFormValues {
  threshold: string;
  webhookUrl: string;
}

const STATUS: Record<AlertDeliveryStatus, { label: MessageKey; color: string }> = {
  pending: { label: "alerts.statusPending", color: "gold" },
  delivered: { label: "alerts.statusDelivered", color: "green" },
  failed: { label: "alerts.statusFailed", color: "red" },
  skipped: { label: "alerts.statusSkipped", color: "default" },
};

const THRESHOLD_PROBLEMS: Record<NonNullable<ReturnType<typeof thresholdProblem>>, MessageKey> = {
  malformed: "alerts.thresholdMalformed",
  notPositive: "alerts.thresholdNotPositive",
  tooLarge: "alerts.thresholdTooLarge",
};

/** The signing secret, right after it was created or rotated: shown this once. */
function SecretOnce({ secret }: { secret: string }) {
  const t = useT();
  const copy = async () => {
    if (await copyText(secret)) toast("success", t("alerts.copied"));
    else toast("error", t("alerts.copyFailed"));
  };
  return (
    <Space orientation="vertical" style={{ width: "100%" }}>
      <Alert type="warning" showIcon title={t("alerts.secretWarning")} />
      <Space.Compact style={{ width: "100%" }}>
        <Input readOnly value={secret} data-testid="webhook-secret" aria-label={t("alerts.secret")} onFocus={(e) => e.target.select()} />
        <Button onClick={() => void copy()}>{t("alerts.copy")}</Button>
      </Space.Compact>
    </Space>
  );
}

const EVENT_LABELS: Partial<Record<string, MessageKey>> = {
  [ALERT_EVENT_TYPES.test]: "alerts.eventTest",
  [ALERT_EVENT_TYPES.lowBalance]: "alerts.eventLow",
  [ALERT_EVENT_TYPES.lotExpiring]: "alerts.eventLotExpiring",
};

function Deliveries({ deliveries }: { deliveries: AlertDelivery[] }) {
  const t = useT();
  const columns: TableColumnsType<AlertDelivery> = [
    { title: t("alerts.colTime"), key: "time", render: (_: unknown, d) => beijingDateTime(d.createdAt) },
    { title: t("alerts.colEvent"), key: "event", render: (_: unknown, d) => t(EVENT_LABELS[d.eventType] ?? "alerts.eventLow") },
    { title: t("alerts.colChannel"), key: "channel", render: (_: unknown, d) => (d.channel === "sms" ? t("alerts.channelSms") : t("alerts.channelWebhook")) },
    {
      title: t("alerts.colStatus"),
      key: "status",
      render: (_: unknown, d) => (
        <Tag color={STATUS[d.status].color} data-testid="delivery-status" data-status={d.status}>
          {t(STATUS[d.status].label)}
        </Tag>
      ),
    },
    {
      title: t("alerts.colAttempts"),
      key: "attempts",
      render: (_: unknown, d) => (
        <div data-testid="delivery-attempts">
          {d.attempts.map((a) => (
            <div key={a.at}>
              {beijingDateTime(a.at)} · {a.httpStatus ?? a.error}
            </div>
          ))}
          {d.status === "skipped" && d.lastError}
          {d.nextAttemptAt && <Typography.Text type="secondary">{t("alerts.nextAttempt", { at: beijingDateTime(d.nextAttemptAt) })}</Typography.Text>}
        </div>
      ),
    },
  ];
  return <Table rowKey="id" size="small" columns={columns} dataSource={deliveries} pagination={false} data-testid="alert-deliveries" />;
}

/** Low-balance alerts on /console/info: a threshold (off when empty), an optional webhook, its secret, a test event, and what was sent. */
export function AlertsCard() {
  const t = useT();
  const token = useSession((s) => s.token);
  const queryClient = useQueryClient();
  const [form] = Form.useForm<AlertFormValues>();
  const [secret, setSecret] = useState<string | null>(null);
  const alerts = useQuery({
    ...alertsQueryOptions(token),
    refetchInterval: (query) => (query.state.data?.deliveries.some((d) => d.status === "pending") ? 2000 : false),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: alertsQueryKey });
  // One save per click of Save: a double click sent the settings twice and said "saved" twice.
  const submission = useFormSubmission();
  const save = useMutation({
    mutationFn: ({ body, idempotencyKey }: { body: AlertSettingsInput; idempotencyKey: string }) => saveAlerts(body, idempotencyKey),
    onSettled: () => submission.settled(),
    onSuccess: (saved) => {
      submission.forget();
      if (saved.webhookSecret) setSecret(saved.webhookSecret);
      toast("success", t("alerts.saved"));
      return refresh();
    },
    onError: (error) => {
      const field = refusedField(error);
      if (field === "webhookUrl") form.setFields([{ name: "webhookUrl", errors: [t("alerts.webhookRefused")] }]);
      else if (field === "threshold") form.setFields([{ name: "threshold", errors: [t("alerts.thresholdMalformed")] }]);
      else toast("error", field ? t("errors.invalidInput") : error.message);
    },
  });
  const rotate = useMutation({ mutationFn: rotateWebhookSecret, onSuccess: (r) => setSecret(r.webhookSecret) });
  const test = useMutation({
    mutationFn: sendTestEvent,
    onSuccess: () => {
      toast("success", t("alerts.testQueued"));
      return refresh();
    },
  });
  const data = alerts.data;
  return (
    <Card title={t("alerts.title")} loading={alerts.isPending} data-testid="alerts-card">
      <Typography.Paragraph type="secondary">{t("alerts.intro", { sms: data?.smsPerDay ?? 0 })}</Typography.Paragraph>
      {data && (
        <Form
          form={form}
          layout="vertical"
          initialValues={{ threshold: data.threshold ?? "", webhookUrl: data.webhookUrl ?? "" }}
          onFinish={(values) => {
            const body = { threshold: values.threshold.trim() || null, webhookUrl: values.webhookUrl.trim() || null };
            const idempotencyKey = submission.start(body);
            if (idempotencyKey) save.mutate({ body, idempotencyKey });
          }}
        >
          <Form.Item
            name="threshold"
            label={t("alerts.threshold")}
            extra={t("alerts.thresholdHelp")}
            rules={[
              {
                validator: (_r, value: string | undefined) => {
                  if (!value || value.trim() === "") return Promise.resolve();
                  const problem = thresholdProblem(value);
                  return problem ? Promise.reject(new Error(t(THRESHOLD_PROBLEMS[problem], { max: MAX_AMOUNT }))) : Promise.resolve();
                },
              },
            ]}
          >
            <Input prefix={siteConfig.currencySymbol} inputMode="decimal" placeholder={t("alerts.off")} data-testid="alert-threshold" />
          </Form.Item>
          <Form.Item
            name="webhookUrl"
            label={t("alerts.webhookUrl")}
            extra={t("alerts.webhookHelp")}
            rules={[
              {
                validator: (_r, value: string | undefined) => {
                  if (!value || value.trim() === "") return Promise.resolve();
                  const problem = webhookUrlShapeProblem(value);
                  if (!problem) return Promise.resolve();
                  return Promise.reject(new Error(problem === "tooLong" ? t("alerts.webhookTooLong", { max: WEBHOOK_URL_MAX }) : t("alerts.webhookMalformed")));
                },
              },
            ]}
          >
            <Input placeholder="https://example.com/hooks/tollgate" data-testid="alert-webhook-url" />
          </Form.Item>
          <Space wrap>
            <Button type="primary" htmlType="submit" loading={save.isPending} data-testid="save-alerts">
              {t("alerts.save")}
            </Button>
            <Button disabled={!data.webhookUrl} loading={test.isPending} onClick={() => test.mutate()} data-testid="send-test-event">
              {t("alerts.sendTest")}
            </Button>
            <Button disabled={!data.webhookUrl} loading={rotate.isPending} onClick={() => rotate.mutate()} data-testid="rotate-secret">
              {t("alerts.rotate")}
            </Button>
          </Space>
        </Form>
      )}
      {secret && (
        <div style={{ marginTop: 16 }}>
          <SecretOnce secret={secret} />
        </div>
      )}
      {data && data.deliveries.length > 0 && (
        <div style={{ marginTop: 16 }}>
          <Deliveries deliveries={data.deliveries} />
        </div>
      )}
    </Card>
  );
}
