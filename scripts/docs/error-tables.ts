/** Error tables generated from the server's own error registries, so the docs list every code. */
import { API_ERRORS, type ErrorCode } from "../../src/shared/errors";
import { CALL_LOG_OUTCOMES } from "../../src/shared/calls";
import { GATEWAY_ERRORS, type GatewayErrorCode } from "../../src/shared/gateway";
import { CALL_OUTCOME_MEANING_ZH, CONSOLE_MEANING_ZH, GATEWAY_ADVICE_ZH, GATEWAY_MEANING_ZH } from "./error-tables-zh";
import type { DocsLanguage } from "../../src/server/modules/site-pages/docs-languages";

const HEADERS: Record<DocsLanguage, { gateway: string; console: string; outcomes: string; seeMessage: string }> = {
  en: { gateway: "| Status | Code | Meaning | What to do |", console: "| Code | Status | Meaning |", outcomes: "| Outcome | Meaning |", seeMessage: "See the message." },
  "zh-CN": { gateway: "| 状态码 | 错误码 | 含义 | 处理方法 |", console: "| 错误码 | 状态码 | 含义 |", outcomes: "| 结果 | 含义 |", seeMessage: "见错误消息。" },
};

const GATEWAY_ADVICE: Partial<Record<GatewayErrorCode, string>> = {
  invalid_key: "Send `Authorization: Bearer <API key>` with an active key from [API keys](/console/api-keys).",
  insufficient_balance: "[Top up](/console/charge-details), then retry. The message says what the call needed held; an LLM call holds what its longest answer would cost, so asking for fewer tokens (`max_tokens`) may let it through.",
  spend_limit_reached: "Raise or remove the key's spend limit on [API keys](/console/api-keys), or use another key.",
  prepaid_exhausted: "[Buy a package](/console/charge-details) of the tool, or set the key to pay from the balance once prepaid units run out on [API keys](/console/api-keys). The `X-Quota-Remaining` header gives the units left.",
  ip_not_allowed: "Call from an address on the key's IP allowlist, or add this address to it.",
  tool_not_allowed: "Add the tool to the key's allowed tools, or use another key.",
  tool_not_approved: "[Apply for access](/console/apply) and wait for the approval.",
  unknown_tool: "Check the tool id on the [tools](tools.md) page.",
  unknown_path: "An OpenAI-compatible tool serves `POST /chat/completions`, `POST /responses`, `POST /embeddings` and `GET /models`: check that the SDK's `baseURL` ends with the tool id.",
  unknown_model: "Use one of the models the message lists, or see the tool's models and prices on the [tools](tools.md) page.",
  idempotency_in_progress: "The first call with this key is still running: retry shortly. See [idempotency](billing.md#idempotent-gateway-calls).",
  idempotency_stream_not_replayable: "The first call was answered and charged: find it by its request id in [billing details](/console/billing-details); send a new key to call again.",
  idempotency_key_reused: "Use a new `Idempotency-Key` for a different call.",
  invalid_idempotency_key: "Send 8 to 128 letters, digits, `-` or `_`.",
  rate_limited: "Wait the seconds the `Retry-After` header gives, then retry.",
  upstream_failed: "Retry after a moment; if it persists, contact us with the request id.",
  upstream_timeout: "Retry after a moment, perhaps with a smaller request.",
  internal_error: "Retry later; if it persists, contact us with the request id.",
  server_busy: "Retry after the seconds the `Retry-After` header gives.",
};

function cell(text: string): string {
  return text.replace(/\|/g, "\\|");
}

export function gatewayErrorsMarkdown(language: DocsLanguage = "en"): string {
  const rows = (Object.entries(GATEWAY_ERRORS) as [GatewayErrorCode, { status: number; message: string }][])
    .sort(([, a], [, b]) => a.status - b.status)
    .map(([code, { status, message }]) => {
      const meaning = language === "en" ? `${message.charAt(0).toUpperCase()}${message.slice(1)}.` : GATEWAY_MEANING_ZH[code];
      const advice = (language === "en" ? GATEWAY_ADVICE : GATEWAY_ADVICE_ZH)[code] ?? HEADERS[language].seeMessage;
      return `| \`${status}\` | \`${code}\` | ${cell(meaning)} | ${advice} |`;
    });
  return [HEADERS[language].gateway, "|---|---|---|---|", ...rows].join("\n");
}

export function consoleErrorsMarkdown(language: DocsLanguage = "en"): string {
  const rows = (Object.entries(API_ERRORS) as [ErrorCode, { status: number; meaning: string }][]).map(
    ([code, { status, meaning }]) => `| \`${code}\` | ${status} | ${cell(language === "en" ? meaning : CONSOLE_MEANING_ZH[code])} |`,
  );
  return [HEADERS[language].console, "|---|---|---|", ...rows].join("\n");
}

/** The call log's outcome codes of its own; a call that ended in a gateway error has that error's code. */
export function callOutcomesMarkdown(language: DocsLanguage = "en"): string {
  const rows = (Object.entries(CALL_LOG_OUTCOMES) as [keyof typeof CALL_LOG_OUTCOMES, string][]).map(
    ([code, meaning]) => `| \`${code}\` | ${cell(language === "en" ? `${meaning.charAt(0).toUpperCase()}${meaning.slice(1)}.` : CALL_OUTCOME_MEANING_ZH[code])} |`,
  );
  return [HEADERS[language].outcomes, "|---|---|", ...rows].join("\n");
}

export const GENERATED_BLOCKS: Record<string, (language: DocsLanguage) => string> = {
  "gateway-errors": gatewayErrorsMarkdown,
  "console-errors": consoleErrorsMarkdown,
  "call-outcomes": callOutcomesMarkdown,
};

/** Replaces each `<!-- generated:NAME -->` line with its generated Markdown. */
export function expandGeneratedBlocks(markdown: string, source: string, language: DocsLanguage = "en"): string {
  return markdown.replace(/<!-- generated:([\w-]+) -->/g, (_, name: string) => {
    const block = GENERATED_BLOCKS[name];
    if (!block) throw new Error(`docs: ${source} asks for the generated block "${name}", which does not exist`);
    return block(language);
  });
}
