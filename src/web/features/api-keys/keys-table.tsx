import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Button, Popconfirm, Space, Table, Tag, Typography, type TableColumnsType } from "antd";
import { useState } from "react";
import { Link } from "react-router";
import type { ApiKey, ApiKeyStatus } from "#shared/api-keys";
import { useT, type MessageKey } from "../../i18n";
import { beijingDateTime } from "#shared/beijing-time";
import { parseMoney } from "#shared/money";
import { fitBesideFixedColumns } from "../../components/fit-beside-fixed-columns";
import { TableTime } from "../../components/table-time";
import { siteConfig } from "../../lib/site-config";
import { keysQueryKey } from "../../lib/api/list-keys";
import { toast } from "../../lib/toast";
import { PHONE_SCREEN, useMediaQuery } from "../../lib/use-media-query";
import { MONO } from "./mono";
import { deleteKey } from "./api/delete-key";
import { updateKey } from "./api/update-key";
import { EditKeyModal } from "./edit-key-modal";
import { PERIOD_LABELS } from "./key-form";

const STATUS: Record<ApiKeyStatus, { label: MessageKey; color: string }> = {
  active: { label: "apiKeys.statusActive", color: "green" },
  disabled: { label: "apiKeys.statusDisabled", color: "default" },
  expired: { label: "apiKeys.statusExpired", color: "orange" },
};

function KeyActions({ apiKey, onEdit }: { apiKey: ApiKey; onEdit: () => void }) {
  const t = useT();
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: keysQueryKey });
  const toggle = useMutation({
    mutationFn: (enabled: boolean) => updateKey(apiKey.id, { enabled }),
    onSuccess: (key) => {
      toast("success", t(key.status === "disabled" ? "apiKeys.disabled" : "apiKeys.enabled"));
      return refresh();
    },
  });
  const remove = useMutation({
    mutationFn: () => deleteKey(apiKey.id),
    onSuccess: () => {
      toast("success", t("apiKeys.deleted"));
      return refresh();
    },
  });
  const disabled = apiKey.status === "disabled";
  return (
    <Space size={4} wrap>
      <Link to={`/console/api-keys?try&key=${apiKey.id}`} data-testid="try-key-link">
        {t("nav.tryIt")}
      </Link>
      <Button size="small" type="link" onClick={onEdit} data-testid="edit-key">
        {t("apiKeys.edit")}
      </Button>
      <Button size="small" type="link" loading={toggle.isPending} onClick={() => toggle.mutate(disabled)} data-testid="toggle-key">
        {disabled ? t("apiKeys.enable") : t("apiKeys.disable")}
      </Button>
      <Popconfirm
        title={t("apiKeys.deleteConfirm", { name: apiKey.name })}
        okText={t("apiKeys.delete")}
        cancelText={t("apiKeys.cancel")}
        okButtonProps={{ danger: true, loading: remove.isPending }}
        onConfirm={() => remove.mutateAsync()}
      >
        <Button size="small" type="link" danger data-testid="delete-key">
          {t("apiKeys.delete")}
        </Button>
      </Popconfirm>
    </Space>
  );
}

/** Spent up to its limit this period: every call is refused (402 spend_limit_reached) until the period resets or the limit is raised. */
function spendLimitReached(key: ApiKey): boolean {
  return key.spendLimit !== null && parseMoney(key.periodSpent) >= parseMoney(key.spendLimit);
}

export function KeysTable({ keys, loading }: { keys: ApiKey[]; loading: boolean }) {
  const t = useT();
  const [editing, setEditing] = useState<ApiKey | null>(null);
  const money = (amount: string) => `${siteConfig.currencySymbol}${amount}`;
  const phone = useMediaQuery(PHONE_SCREEN);
  const columns: TableColumnsType<ApiKey> = [
    { title: t("apiKeys.colName"), dataIndex: "name", key: "name", render: (name: string) => <span data-testid="key-name">{name}</span> },
    {
      title: t("apiKeys.colKey"),
      dataIndex: "maskedKey",
      key: "key",
      render: (masked: string) => (
        <Typography.Text code className="nowrap" data-testid="key-masked">
          {masked}
        </Typography.Text>
      ),
    },
    {
      title: t("apiKeys.colStatus"),
      dataIndex: "status",
      key: "status",
      render: (status: ApiKeyStatus, key) => (
        <>
          <Tag color={STATUS[status].color} data-testid="key-status" data-status={status}>
            {t(STATUS[status].label)}
          </Tag>
          {status === "active" && spendLimitReached(key) ? (
            <Tag color="red" data-testid="key-limit-reached">
              {t("apiKeys.spendLimitReached")}
            </Tag>
          ) : null}
          {key.whenPrepaidRunsOut === "stop" ? <Tag data-testid="key-prepaid-stop">{t("apiKeys.stopsWhenPrepaidRunsOut")}</Tag> : null}
        </>
      ),
    },
    { title: t("apiKeys.colCreated"), dataIndex: "createdAt", key: "created", render: (at: string) => <TableTime at={at} /> },
    {
      title: t("apiKeys.colLastUsed"),
      dataIndex: "lastUsedAt",
      key: "lastUsed",
      render: (at: string | null) => (at ? <TableTime at={at} /> : t("apiKeys.never")),
    },
    {
      title: t("apiKeys.colSpend"),
      key: "spend",
      render: (_: unknown, key) => (
        <>
          <span data-testid="key-spend">
            {money(key.periodSpent)} / {key.spendLimit === null ? t("apiKeys.noLimit") : money(key.spendLimit)}
          </span>
          {key.spendLimitPeriod !== "lifetime" && (
            <div data-testid="key-spend-period">
              <Typography.Text type="secondary">
                {t(PERIOD_LABELS[key.spendLimitPeriod])} · {t("apiKeys.periodResets", { at: beijingDateTime(key.periodEndsAt!) })}
              </Typography.Text>
            </div>
          )}
        </>
      ),
    },
    {
      title: t("apiKeys.colTools"),
      dataIndex: "allowedTools",
      key: "tools",
      render: (tools: string[]) => (tools.length === 0 ? t("apiKeys.allTools") : tools.map((id) => <Tag key={id}>{id}</Tag>)),
    },
    {
      title: t("apiKeys.colIps"),
      dataIndex: "ipAllowlist",
      key: "ips",
      render: (rules: string[]) =>
        rules.length === 0 ? (
          t("apiKeys.anywhere")
        ) : (
          <div style={MONO} data-testid="key-ips">
            {rules.map((rule) => (
              <div key={rule}>{rule}</div>
            ))}
          </div>
        ),
    },
    {
      title: t("apiKeys.colExpires"),
      dataIndex: "expiresAt",
      key: "expires",
      render: (at: string | null) => (at ? <TableTime at={at} /> : t("apiKeys.never")),
    },
    {
      title: t("apiKeys.colActions"),
      key: "actions",
      // Kept in view at the right edge where there is room; on a phone it would stand over the key, so it scrolls with the rest.
      fixed: phone ? undefined : "right",
      render: (_: unknown, key) => <KeyActions apiKey={key} onEdit={() => setEditing(key)} />,
    },
  ];
  return (
    <>
      <Table<ApiKey>
        rowKey="id"
        columns={columns}
        dataSource={keys}
        loading={loading}
        pagination={false}
        {...fitBesideFixedColumns(phone)}
        // Ten columns beside the actions: antd's denser padding leaves them room to fit a laptop's screen.
        size="middle"
        locale={{ emptyText: t("apiKeys.empty") }}
        onRow={(key) => ({ "data-testid": "key-row", "data-key-id": key.id }) as React.HTMLAttributes<HTMLElement>}
      />
      {editing ? <EditKeyModal apiKey={editing} onClose={() => setEditing(null)} /> : null}
    </>
  );
}
