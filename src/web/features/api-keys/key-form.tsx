import { useQuery } from "@tanstack/react-query";
import { DatePicker, Form, Input, Radio, Select, type FormInstance } from "antd";
import type { Rule } from "antd/es/form";
import dayjs, { type Dayjs } from "dayjs";
import { beijingDate, beijingDateTime, beijingDayStart } from "#shared/beijing-time";
import {
  API_KEY_LIST_MAX,
  API_KEY_NAME_MAX,
  apiKeyNameProblem,
  isIpRule,
  spendLimitProblem,
  type ApiKey,
  type WhenPrepaidRunsOut,
} from "#shared/api-keys";
import { MAX_AMOUNT, parseMoney } from "#shared/money";
import { SPEND_LIMIT_PERIODS, type SpendLimitPeriod } from "#shared/spend-period";
import { useT, type MessageKey, type Translate } from "../../i18n";
import { toolsQueryOptions, useToolName } from "../../lib/api/list-tools";
import { siteConfig } from "../../lib/site-config";
import { MONO } from "./mono";

export interface KeyFormValues {
  name: string;
  expiresOn: Dayjs | null;
  spendLimit: string;
  spendLimitPeriod: SpendLimitPeriod;
  allowedTools: string[];
  ipAllowlist: string;
  whenPrepaidRunsOut: WhenPrepaidRunsOut;
}

/** A key set to expire on a day lasts to the end of that Beijing day. */
function expiryOf(day: Dayjs): Date {
  return new Date(beijingDayStart(day.format("YYYY-MM-DD"), 1).getTime() - 1);
}

/** The form's fields as the API takes them; empty optional fields become null (no limit). */
export function toKeyBody(values: KeyFormValues) {
  const spendLimit = values.spendLimit?.trim() ?? "";
  return {
    name: values.name.trim(),
    expiresAt: values.expiresOn ? expiryOf(values.expiresOn).toISOString() : null,
    spendLimit: spendLimit === "" ? null : spendLimit,
    spendLimitPeriod: values.spendLimitPeriod ?? "lifetime",
    allowedTools: values.allowedTools ?? [],
    ipAllowlist: ipLines(values.ipAllowlist),
    whenPrepaidRunsOut: values.whenPrepaidRunsOut ?? "balance",
  };
}

export function toKeyFormValues(key: ApiKey): KeyFormValues {
  return {
    name: key.name,
    expiresOn: key.expiresAt ? dayjs(beijingDate(key.expiresAt)) : null,
    spendLimit: key.spendLimit ?? "",
    spendLimitPeriod: key.spendLimitPeriod,
    allowedTools: key.allowedTools,
    ipAllowlist: key.ipAllowlist.join("\n"),
    whenPrepaidRunsOut: key.whenPrepaidRunsOut,
  };
}

function ipLines(text: string | undefined): string[] {
  return (text ?? "")
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

export const PERIOD_LABELS: Record<SpendLimitPeriod, MessageKey> = {
  lifetime: "apiKeys.periodLifetime",
  day: "apiKeys.periodDay",
  month: "apiKeys.periodMonth",
};

const reject = (message: string) => Promise.reject(new Error(message));

function rules(t: Translate, editing?: ApiKey): Record<keyof KeyFormValues, Rule[]> {
  return {
    name: [
      {
        validator: (_r, value: string | undefined) => {
          const problem = apiKeyNameProblem(value ?? "");
          if (problem === "required") return reject(t("apiKeys.nameRequired"));
          if (problem === "tooLong") return reject(t("apiKeys.nameTooLong"));
          return Promise.resolve();
        },
      },
    ],
    expiresOn: [
      // An expired key keeps its old date until the user picks another, so only a new choice is checked.
      ({ isFieldTouched }) => ({
        validator: (_r, value: Dayjs | null | undefined) =>
          value && isFieldTouched("expiresOn") && expiryOf(value).getTime() <= Date.now()
            ? reject(t("apiKeys.expiryPast"))
            : Promise.resolve(),
      }),
    ],
    spendLimitPeriod: [],
    spendLimit: [
      {
        validator: (_r, value: string | undefined) => {
          if (!value || value.trim() === "") return Promise.resolve();
          const problem = spendLimitProblem(value);
          if (problem === "malformed") return reject(t("apiKeys.spendLimitMalformed"));
          if (problem === "notPositive") return reject(t("apiKeys.spendLimitNotPositive"));
          if (problem === "tooLarge") return reject(t("apiKeys.spendLimitTooLarge", { max: MAX_AMOUNT }));
          return Promise.resolve();
        },
      },
      // Allowed, but said: a limit at or below what the key has spent refuses its every call.
      ({ getFieldValue }) => ({
        warningOnly: true,
        validator: (_r, value: string | undefined) => {
          const limit = value?.trim() ?? "";
          if (!editing || limit === "" || spendLimitProblem(limit)) return Promise.resolve();
          const period = getFieldValue("spendLimitPeriod") as SpendLimitPeriod;
          const spent = period === editing.spendLimitPeriod ? editing.periodSpent : period === "lifetime" ? editing.spent : null;
          if (spent === null || parseMoney(limit) > parseMoney(spent)) return Promise.resolve();
          const amount = `${siteConfig.currencySymbol}${spent}`;
          return reject(
            period === "lifetime"
              ? t("apiKeys.limitNotAboveSpent", { spent: amount })
              : t("apiKeys.limitNotAboveSpentThisPeriod", { spent: amount, at: beijingDateTime(editing.periodEndsAt!) }),
          );
        },
      }),
    ],
    allowedTools: [],
    whenPrepaidRunsOut: [],
    ipAllowlist: [
      {
        validator: (_r, value: string | undefined) => {
          const lines = ipLines(value);
          const bad = lines.find((rule) => !isIpRule(rule));
          if (bad) return reject(t("apiKeys.ipRuleMalformed", { rule: bad }));
          if (lines.length > API_KEY_LIST_MAX) return reject(t("apiKeys.tooManyRules", { max: API_KEY_LIST_MAX }));
          return Promise.resolve();
        },
      },
    ],
  };
}

/** Name, expiry, spend limit, allowed tools, IP allowlist and what to do when prepaid units run out: the same fields to create and to edit a key. */
/** `editing`: the key being edited, whose spending the spend limit's warning compares against. */
export function KeyForm({ form, initialValues, editing }: { form: FormInstance<KeyFormValues>; initialValues?: KeyFormValues; editing?: ApiKey }) {
  const t = useT();
  const tools = useQuery(toolsQueryOptions());
  const toolName = useToolName();
  const r = rules(t, editing);
  return (
    <Form
      form={form}
      layout="vertical"
      name="api-key"
      requiredMark="optional"
      initialValues={initialValues ?? { name: "", expiresOn: null, spendLimit: "", spendLimitPeriod: "lifetime", allowedTools: [], ipAllowlist: "", whenPrepaidRunsOut: "balance" }}
    >
      <Form.Item name="name" label={t("apiKeys.name")} rules={r.name} required>
        <Input placeholder={t("apiKeys.namePlaceholder")} count={{ show: true, max: API_KEY_NAME_MAX }} autoFocus />
      </Form.Item>
      <Form.Item name="expiresOn" label={t("apiKeys.expiresAt")} extra={t("apiKeys.expiresHelp")} rules={r.expiresOn}>
        <DatePicker format="YYYY-MM-DD" style={{ width: "100%" }} />
      </Form.Item>
      <Form.Item name="spendLimit" label={t("apiKeys.spendLimit")} extra={t("apiKeys.spendLimitHelp")} rules={r.spendLimit} dependencies={["spendLimitPeriod"]}>
        <Input prefix={siteConfig.currencySymbol} inputMode="decimal" placeholder={t("apiKeys.noLimit")} />
      </Form.Item>
      <Form.Item name="spendLimitPeriod" label={t("apiKeys.spendLimitPeriod")}>
        <Select data-testid="spend-limit-period" options={SPEND_LIMIT_PERIODS.map((period) => ({ value: period, label: t(PERIOD_LABELS[period]) }))} />
      </Form.Item>
      <Form.Item name="allowedTools" label={t("apiKeys.allowedTools")} extra={t("apiKeys.allowedToolsHelp")}>
        <Select
          mode="multiple"
          allowClear
          loading={tools.isPending}
          placeholder={t("apiKeys.allTools")}
          options={(tools.data ?? []).map((tool) => ({ value: tool.id, label: `${toolName(tool.id)} (${tool.id})` }))}
        />
      </Form.Item>
      <Form.Item name="ipAllowlist" label={t("apiKeys.ipAllowlist")} extra={t("apiKeys.ipAllowlistHelp")} rules={r.ipAllowlist}>
        <Input.TextArea autoSize={{ minRows: 2, maxRows: 8 }} placeholder={"203.0.113.7\n10.0.0.0/8\n2001:db8::/32"} spellCheck={false} style={MONO} />
      </Form.Item>
      <Form.Item name="whenPrepaidRunsOut" label={t("apiKeys.whenPrepaidRunsOut")} extra={t("apiKeys.whenPrepaidRunsOutHelp")}>
        <Radio.Group
          data-testid="when-prepaid-runs-out"
          options={[
            { value: "balance", label: t("apiKeys.prepaidBalance") },
            { value: "stop", label: t("apiKeys.prepaidStop") },
          ]}
        />
      </Form.Item>
    </Form>
  );
}
