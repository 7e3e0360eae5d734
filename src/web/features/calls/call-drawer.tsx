import { useQuery } from "@tanstack/react-query";
import { Descriptions, Drawer, Spin, Tag, Typography } from "antd";
import { beijingDateTime } from "#shared/beijing-time";
import type { CallDetail } from "#shared/calls";
import { useT } from "../../i18n";
import { withCurrency } from "../../lib/money-format";
import { useSession } from "../../lib/session-store";
import { callDetailQueryOptions } from "./api/list-calls";
import { OutcomeTag } from "./outcome-tag";

/** One call, found by its exact request id on the server: what happened, when, what it cost and the error its caller got. */
export function CallDrawer({
  requestId,
  retentionDays,
  toolName,
  onClose,
}: {
  requestId: string | undefined;
  retentionDays: number | undefined;
  toolName: (toolId: string) => string;
  onClose: () => void;
}) {
  const t = useT();
  const token = useSession((s) => s.token);
  const detail = useQuery({ ...callDetailQueryOptions(requestId ?? "", token), enabled: requestId !== undefined });
  return (
    <Drawer open={requestId !== undefined} onClose={onClose} size="large" title={t("calls.detail.title", { id: requestId ?? "" })} data-testid="call-drawer">
      {detail.isLoading ? <Spin /> : null}
      {detail.data === null ? (
        <Typography.Paragraph data-testid="call-not-found">
          {t("calls.notFound", { days: retentionDays ?? "", id: requestId ?? "" })}
        </Typography.Paragraph>
      ) : null}
      {detail.data ? <CallDescription call={detail.data} toolName={toolName(detail.data.toolId)} /> : null}
    </Drawer>
  );
}

function CallDescription({ call, toolName }: { call: CallDetail; toolName: string }) {
  const t = useT();
  const ms = (value: number | null) => (value === null ? "-" : `${value} ms`);
  return (
    <Descriptions column={1} bordered size="small" data-testid="call-detail">
      <Descriptions.Item label={t("calls.detail.time")}>{beijingDateTime(call.time)}</Descriptions.Item>
      <Descriptions.Item label={t("calls.detail.tool")}>{toolName}</Descriptions.Item>
      <Descriptions.Item label={t("calls.detail.key")}>{call.keyName}</Descriptions.Item>
      <Descriptions.Item label={t("calls.detail.outcome")}>
        <OutcomeTag outcome={call.outcome} status={call.httpStatus} />
      </Descriptions.Item>
      <Descriptions.Item label={t("calls.detail.httpStatus")}>{call.httpStatus}</Descriptions.Item>
      <Descriptions.Item label={t("calls.detail.upstreamStatus")}>{call.upstreamStatus ?? t("calls.detail.noAnswer")}</Descriptions.Item>
      <Descriptions.Item label={t("calls.detail.held")}>{withCurrency(call.held)}</Descriptions.Item>
      <Descriptions.Item label={t("calls.detail.charged")}>{withCurrency(call.amount)}</Descriptions.Item>
      <Descriptions.Item label={t("calls.detail.refunded")}>{withCurrency(call.refunded)}</Descriptions.Item>
      {call.operatorRefund && (
        <Descriptions.Item label={t("calls.detail.operatorRefund")}>
          <span data-testid="call-operator-refund">{`${withCurrency(call.operatorRefund.amount)}, ${beijingDateTime(call.operatorRefund.time)}: ${call.operatorRefund.reference}`}</span>
        </Descriptions.Item>
      )}
      <Descriptions.Item label={t("calls.detail.units")}>
        {call.units}
        {call.prepaidUnits > 0 && t("calls.detail.prepaidPart", { units: call.prepaidUnits })}
      </Descriptions.Item>
      <Descriptions.Item label={t("calls.detail.streamed")}>{call.streamed ? t("calls.detail.yes") : t("calls.detail.no")}</Descriptions.Item>
      <Descriptions.Item label={t("calls.detail.fromConsole")}>
        <span data-testid="call-from-console">{call.fromConsole ? t("calls.detail.yes") : t("calls.detail.no")}</span>
      </Descriptions.Item>
      <Descriptions.Item label={t("calls.detail.bytes")}>{`${call.bytesIn} / ${call.bytesOut}`}</Descriptions.Item>
      <Descriptions.Item label={t("calls.detail.network")}>{call.clientNetwork}</Descriptions.Item>
      <Descriptions.Item label={t("calls.detail.durations")}>{`${ms(call.totalMs)} / ${ms(call.upstreamMs)} / ${ms(call.ownMs)}`}</Descriptions.Item>
      <Descriptions.Item label={t("calls.detail.timeline")}>
        <ol className="call-timeline" data-testid="call-timeline">
          {call.timeline.map((step) => (
            <li key={step.step}>{`${t(`calls.detail.steps.${step.step}`)}: ${step.atMs} ms`}</li>
          ))}
        </ol>
      </Descriptions.Item>
      <Descriptions.Item label={t("calls.detail.error")}>
        {call.error ? (
          <span data-testid="call-error">
            <Tag>{call.error.code}</Tag>
            <Typography.Text>{call.error.message}</Typography.Text>
          </span>
        ) : (
          t("calls.detail.none")
        )}
      </Descriptions.Item>
    </Descriptions>
  );
}
