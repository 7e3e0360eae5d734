import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Alert, Button, Card, Descriptions, Empty, Flex, Input, List, Select, Space, Tabs, Tag, Typography } from "antd";
import { useEffect, useMemo, useRef, useState } from "react";
import { Link, useSearchParams } from "react-router";
import type { ApiKey } from "#shared/api-keys";
import { beijingDateTime } from "#shared/beijing-time";
import type { PublicTool } from "#shared/catalog";
import { toolText } from "#shared/tool-text";
import { TRY_BODY_MAX_BYTES, TRY_METHODS, isTextual, type KeptTry, type TryEvent, type TryRequest } from "#shared/tries";
import { SNIPPET_LABELS, snippetsFor } from "#shared/try-snippets";
import { useLanguage, useT, type MessageKey } from "../../i18n";
import { refreshUserInfo } from "../../lib/api/get-user-info";
import { keysQueryOptions } from "../../lib/api/list-keys";
import { toolsQueryOptions } from "../../lib/api/list-tools";
import { copyText } from "../../lib/clipboard";
import { withCurrency } from "../../lib/money-format";
import { useSession } from "../../lib/session-store";
import { siteConfig } from "../../lib/site-config";
import { toast } from "../../lib/toast";
import { lotsQueryKey } from "../../lib/api/list-lots";
import { AnswerView } from "./answer-view";
import { Payer } from "./payer";
import "./try-panel.css";
import { sendTry, triesQueryKey, triesQueryOptions } from "./api/tries";

type Draft = Required<Pick<TryRequest, "method" | "path" | "body">> & { contentType: string };

/** Where a try starts: the tool's documented example, or an empty JSON body. */
function draftOf(tool: PublicTool | undefined): Draft {
  const example = tool?.example;
  return { method: (tool?.method as Draft["method"]) ?? "POST", path: example?.path ?? "", contentType: example?.contentType ?? "application/json", body: example?.body ?? "{}" };
}

/** What the try got back so far: the head, the body's bytes (and text, decoded as it comes), then the receipt. */
interface Outcome {
  sent: Draft & { toolId: string; keyId: number };
  head: Extract<TryEvent, { type: "head" }> | null;
  chunks: Uint8Array<ArrayBuffer>[];
  text: string;
  end: Extract<TryEvent, { type: "end" }> | null;
}

const fromBase64 = (base64: string) => Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
const joined = (chunks: Uint8Array<ArrayBuffer>[]) => {
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.length;
  }
  return all;
};
/** A gateway refusal's body: `{error: {code, message}}`. */
function refusalOf(outcome: Outcome): { code: string; message: string } | null {
  if (!outcome.end || !outcome.head || outcome.head.status < 400) return null;
  try {
    const error = (JSON.parse(outcome.text) as { error?: { code?: unknown; message?: unknown } }).error;
    return typeof error?.code === "string" ? { code: error.code, message: String(error.message ?? "") } : null;
  } catch {
    return null;
  }
}

const usable = (key: ApiKey) => key.status === "active";

/**
 * The console's "Try it": one of the user's keys calls a tool through the gateway, as an outside
 * call would (the server makes it; the key's secret never comes here). The price and who pays
 * before; the answer, what it cost and the balance after; the same request as code to copy; the
 * last tries, to load or run again. `?try=<tool id>` and `?key=<key id>` choose the tool and key.
 */
export default function TryPanel() {
  const t = useT();
  const language = useLanguage((s) => s.language);
  const token = useSession((s) => s.token);
  const queryClient = useQueryClient();
  const [params, setParams] = useSearchParams();
  const catalog = useQuery(toolsQueryOptions()).data;
  const tools = useMemo(() => catalog ?? [], [catalog]);
  const keys = useQuery(keysQueryOptions(token)).data?.keys ?? [];
  // A gateway refusal in the reader's language, as the call log names it, with its stable code beside
  // it; a code the catalogue does not name (the translator answers with the key) is shown alone.
  const refusalTitle = (code: string) => {
    const key = `calls.outcomes.${code}` as MessageKey;
    const outcome = t(key);
    return outcome === key ? code : t("tries.refusalTitle", { outcome, code });
  };
  const tries = useQuery(triesQueryOptions(token));

  const toolId = params.get("try") || tools[0]?.id || "";
  const tool = tools.find((candidate) => candidate.id === toolId);
  const keyParam = Number(params.get("key"));
  const keyId = keys.some((key) => key.id === keyParam) ? keyParam : (keys.find(usable) ?? keys[0])?.id;
  const [drafts, setDrafts] = useState<Record<string, Draft>>({});
  const draft = drafts[toolId] ?? draftOf(tool);
  const edit = (part: Partial<Draft>) => setDrafts((all) => ({ ...all, [toolId]: { ...draft, ...part } }));
  const choose = (part: { tool?: string; key?: number }) => {
    const next = new URLSearchParams(params);
    if (part.tool !== undefined) next.set("try", part.tool);
    if (part.key !== undefined) next.set("key", String(part.key));
    setParams(next, { replace: true });
  };

  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [sending, setSending] = useState(false);
  const controller = useRef<AbortController | null>(null);
  // A drawer closed or a page left mid-answer hangs up, as a caller would: the gateway settles the call as one whose caller left.
  useEffect(() => () => controller.current?.abort(), []);
  const bodyBytes = new TextEncoder().encode(draft.body).length;
  const tooLarge = bodyBytes > TRY_BODY_MAX_BYTES;
  const sendsBody = draft.method !== "GET";

  const send = async (request: Draft & { toolId: string; keyId: number }) => {
    controller.current?.abort();
    const aborter = new AbortController();
    controller.current = aborter;
    setSending(true);
    const decoder = new TextDecoder();
    let current: Outcome = { sent: request, head: null, chunks: [], text: "", end: null };
    setOutcome(current);
    let textual = false;
    try {
      await sendTry(
        { keyId: request.keyId, toolId: request.toolId, method: request.method, path: request.path, contentType: request.contentType || null, body: request.body },
        (event) => {
          if (event.type === "head") {
            textual = isTextual(event.contentType) || event.status >= 400;
            current = { ...current, head: event };
          } else if (event.type === "data") {
            const bytes = fromBase64(event.base64);
            current = { ...current, chunks: [...current.chunks, bytes], text: textual ? current.text + decoder.decode(bytes, { stream: true }) : current.text };
          } else {
            current = { ...current, text: textual ? current.text + decoder.decode() : current.text, end: event };
          }
          setOutcome(current);
        },
        aborter.signal,
      );
      void refreshUserInfo();
      void queryClient.invalidateQueries({ queryKey: triesQueryKey });
      void queryClient.invalidateQueries({ queryKey: lotsQueryKey });
    } catch {
      if (!current.head) setOutcome(null);
    } finally {
      if (controller.current === aborter) setSending(false);
    }
  };

  const load = (kept: KeptTry) => {
    setDrafts((all) => ({ ...all, [kept.toolId]: { method: kept.method, path: kept.path, contentType: kept.contentType ?? "", body: kept.requestBody } }));
    choose({ tool: kept.toolId, key: kept.keyId });
  };

  const gatewayBase = `${siteConfig.publicUrl || window.location.origin}/v1/tools`;
  const snippets = useMemo(
    () =>
      outcome
        ? snippetsFor({
            url: `${gatewayBase}/${outcome.sent.toolId}${outcome.sent.path}`,
            method: outcome.sent.method,
            contentType: outcome.sent.contentType || null,
            body: outcome.sent.body,
            openai: Boolean(tools.find((candidate) => candidate.id === outcome.sent.toolId)?.models),
          })
        : [],
    [outcome, gatewayBase, tools],
  );
  const refusal = outcome ? refusalOf(outcome) : null;
  const answerBytes = useMemo(() => (outcome?.end ? joined(outcome.chunks) : null), [outcome]);
  const selectedKey = keys.find((key) => key.id === keyId);

  if (keys.length === 0) {
    return (
      <Card>
        <Empty description={t("tries.noKeys")} />
      </Card>
    );
  }

  return (
    <Flex vertical gap={16}>
      <Card title={<h3 className="try-card-title">{t("tries.request")}</h3>} data-testid="try-request">
        <Flex vertical gap={12}>
          <Flex wrap gap={12}>
            <label className="try-field">
              <span>{t("tries.key")}</span>
              <Select
                aria-label={t("tries.key")}
                value={keyId}
                onChange={(id: number) => choose({ key: id })}
                style={{ minWidth: 220 }}
                data-testid="try-key"
                options={keys.map((key) => ({ value: key.id, label: key.status === "active" ? key.name : `${key.name} (${t(`apiKeys.status${key.status === "disabled" ? "Disabled" : "Expired"}`)})` }))}
              />
            </label>
            <label className="try-field">
              <span>{t("tries.tool")}</span>
              <Select
                aria-label={t("tries.tool")}
                value={toolId || undefined}
                onChange={(id: string) => choose({ tool: id })}
                style={{ minWidth: 220 }}
                data-testid="try-tool"
                options={tools.map((candidate) => ({ value: candidate.id, label: toolText(candidate, language).name }))}
              />
            </label>
          </Flex>
          {tool ? (
            <Descriptions size="small" column={{ xs: 1, sm: 2 }} data-testid="try-price">
              <Descriptions.Item label={t("tries.price")}>
                {tool.models
                  ? tool.models.map((model) => t("tries.perMillion", { ...model, c: siteConfig.currencySymbol })).join(t("tries.modelSeparator"))
                  : tool.tiers
                    ? t("tries.priceTiered", { price: withCurrency(tool.price), unit: toolText(tool, language).unit ?? t("tries.perCall") })
                    : `${withCurrency(tool.price)} / ${toolText(tool, language).unit ?? t("tries.perCall")}`}
              </Descriptions.Item>
              <Descriptions.Item label={t("tries.payer")}>
                <span data-testid="try-payer">
                  <Payer tool={tool} apiKey={selectedKey} />
                </span>
              </Descriptions.Item>
            </Descriptions>
          ) : null}
          {tool?.requiresApproval ? (
            <Alert type="info" showIcon title={t("tries.needsApproval")} action={<Link to={`/console/apply?tool=${encodeURIComponent(tool.id)}`}>{t("tries.apply")}</Link>} />
          ) : null}
          {selectedKey && !usable(selectedKey) ? <Alert type="warning" showIcon title={t("tries.keyNotActive")} /> : null}
          <Flex wrap gap={12}>
            <label className="try-field">
              <span>{t("tries.method")}</span>
              <Select aria-label={t("tries.method")} value={draft.method} onChange={(method: Draft["method"]) => edit({ method })} style={{ width: 110 }} options={TRY_METHODS.map((m) => ({ value: m, label: m }))} />
            </label>
            <label className="try-field try-field-grow">
              <span>{t("tries.path")}</span>
              <Input addonBefore={`/v1/tools/${toolId}`} value={draft.path} onChange={(e) => edit({ path: e.target.value })} placeholder={t("tries.pathPlaceholder")} data-testid="try-path" />
            </label>
            <label className="try-field">
              <span>{t("tries.contentType")}</span>
              <Input value={draft.contentType} onChange={(e) => edit({ contentType: e.target.value })} style={{ width: 220 }} data-testid="try-content-type" />
            </label>
          </Flex>
          {sendsBody ? (
            <label className="try-field">
              <span>{t("tries.body")}</span>
              <Input.TextArea
                value={draft.body}
                onChange={(e) => edit({ body: e.target.value })}
                autoSize={{ minRows: 6, maxRows: 24 }}
                className="try-body"
                spellCheck={false}
                status={tooLarge ? "error" : undefined}
                data-testid="try-body"
              />
              <Typography.Text type={tooLarge ? "danger" : "secondary"} data-testid="try-body-size">
                {bodyBytes < 1024
                  ? t("tries.bodySizeBytes", { bytes: bodyBytes, max: TRY_BODY_MAX_BYTES / 1024 })
                  : t("tries.bodySize", { kb: (bodyBytes / 1024).toFixed(1), max: TRY_BODY_MAX_BYTES / 1024 })}
              </Typography.Text>
            </label>
          ) : null}
          <Space>
            <Button
              type="primary"
              loading={sending}
              disabled={!tool || keyId === undefined || tooLarge}
              onClick={() => keyId !== undefined && void send({ ...draft, toolId, keyId })}
              data-testid="try-send"
            >
              {t("tries.send")}
            </Button>
            <Button onClick={() => setDrafts((all) => ({ ...all, [toolId]: draftOf(tool) }))}>{t("tries.reset")}</Button>
          </Space>
        </Flex>
      </Card>

      {outcome ? (
        <Card title={<h3 className="try-card-title">{t("tries.result")}</h3>} data-testid="try-result" aria-live="polite" aria-busy={!outcome.end}>
          <Flex vertical gap={12}>
            {outcome.head ? (
              // Two columns at most: the drawer is as narrow on a wide screen as on a tablet, and three
              // pairs broke an amount inside its digits ("¥0.0" above "001").
              <Descriptions size="small" bordered column={{ xs: 1, sm: 2 }}>
                <Descriptions.Item label={t("tries.status")}>
                  <Tag color={outcome.head.status < 300 ? "green" : outcome.head.status < 500 ? "orange" : "red"} data-testid="try-status">
                    {outcome.head.status}
                  </Tag>
                </Descriptions.Item>
                <Descriptions.Item label={t("tries.requestId")}>
                  <Typography.Text copyable data-testid="try-request-id" className="try-mono">
                    {outcome.head.requestId}
                  </Typography.Text>
                </Descriptions.Item>
                <Descriptions.Item label={t("tries.charged")}>
                  <span data-testid="try-charged" className="try-amount">{outcome.end ? withCurrency(outcome.end.amount) : "…"}</span>
                </Descriptions.Item>
                <Descriptions.Item label={t("tries.balanceAfter")}>
                  <span data-testid="try-balance" className="try-amount">{outcome.end ? withCurrency(outcome.end.balance) : "…"}</span>
                </Descriptions.Item>
                <Descriptions.Item label={t("tries.totalTime")}>{outcome.end ? `${outcome.end.totalMs} ms` : "…"}</Descriptions.Item>
                <Descriptions.Item label={t("tries.upstreamTime")}>{outcome.end ? (outcome.end.upstreamMs === null ? "—" : `${outcome.end.upstreamMs} ms`) : "…"}</Descriptions.Item>
              </Descriptions>
            ) : (
              <Typography.Text type="secondary">{t("tries.sending")}</Typography.Text>
            )}
            {refusal ? (
              <Alert
                type="error"
                showIcon
                data-testid="try-refusal"
                title={<span data-testid="try-refusal-title">{refusalTitle(refusal.code)}</span>}
                description={refusal.message}
                action={refusal.code === "tool_not_approved" ? <Link to={`/console/apply?tool=${encodeURIComponent(outcome.sent.toolId)}`}>{t("tries.apply")}</Link> : undefined}
              />
            ) : null}
            {outcome.end?.truncated ? <Alert type="info" showIcon title={t("tries.truncated")} /> : null}
            {outcome.head ? <AnswerView text={outcome.text} bytes={answerBytes} contentType={outcome.head.contentType} done={outcome.end !== null} /> : null}
          </Flex>
        </Card>
      ) : null}

      {outcome?.end ? (
        <Card title={<h3 className="try-card-title">{t("tries.code")}</h3>} data-testid="try-code">
          <Typography.Paragraph type="secondary">{t("tries.codeIntro")}</Typography.Paragraph>
          <Tabs
            items={snippets.map(({ language: snippetLanguage, code }) => ({
              key: snippetLanguage,
              label: SNIPPET_LABELS[snippetLanguage],
              children: (
                <Flex vertical gap={8} align="flex-start">
                  <Button
                    size="small"
                    onClick={() => void copyText(code).then((ok) => toast(ok ? "success" : "error", t(ok ? "apiKeys.copied" : "tries.copyFailed")))}
                    data-testid={`try-copy-${snippetLanguage}`}
                  >
                    {t("apiKeys.copy")}
                  </Button>
                  <pre className="try-pre" data-testid={`try-snippet-${snippetLanguage}`} tabIndex={0} aria-label={SNIPPET_LABELS[snippetLanguage]}>
                    {code}
                  </pre>
                </Flex>
              ),
            }))}
          />
        </Card>
      ) : null}

      <Card title={<h3 className="try-card-title">{t("tries.history")}</h3>} data-testid="try-history">
        <List<KeptTry>
          dataSource={tries.data ?? []}
          loading={tries.isPending}
          locale={{ emptyText: t("tries.historyEmpty") }}
          renderItem={(kept) => (
            <List.Item
              data-testid="try-history-item"
              actions={[
                <Button key="load" size="small" onClick={() => load(kept)}>
                  {t("tries.load")}
                </Button>,
                <Button
                  key="again"
                  size="small"
                  disabled={kept.requestTruncated || !keys.some((key) => key.id === kept.keyId)}
                  title={kept.requestTruncated ? t("tries.cutCannotRun") : undefined}
                  onClick={() => {
                    load(kept);
                    void send({ method: kept.method, path: kept.path, contentType: kept.contentType ?? "", body: kept.requestBody, toolId: kept.toolId, keyId: kept.keyId });
                  }}
                  data-testid="try-again"
                >
                  {t("tries.runAgain")}
                </Button>,
              ]}
            >
              <Space wrap>
                <span>{beijingDateTime(new Date(kept.time))}</span>
                <Tag>{kept.status}</Tag>
                <span>{tools.find((candidate) => candidate.id === kept.toolId) ? toolText(tools.find((candidate) => candidate.id === kept.toolId)!, language).name : kept.toolId}</span>
                <span className="try-mono" data-testid="try-history-call">
                  {kept.method} /v1/tools/{kept.toolId}
                  {kept.path}
                </span>
                <span>{withCurrency(kept.amount)}</span>
              </Space>
            </List.Item>
          )}
        />
      </Card>
    </Flex>
  );
}
