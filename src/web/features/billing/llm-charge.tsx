import { Tag, Typography } from "antd";
import type { LlmChargeRow } from "#shared/billing";
import { useT } from "../../i18n";
import { withCurrency } from "../../lib/money-format";

const count = (tokens: number) => tokens.toLocaleString("en-US");

/** An LLM call's model, its input and output tokens with the amount of each, and who counted them. */
export function LlmCharge({ llm }: { llm: LlmChargeRow }) {
  const t = useT();
  return (
    <div data-testid="billing-llm" style={{ whiteSpace: "nowrap" }}>
      <Typography.Text strong>{llm.model}</Typography.Text>
      <div>{t("billing.llm.input", { tokens: count(llm.inputTokens), amount: withCurrency(llm.inputAmount) })}</div>
      {llm.cachedInputTokens > 0 ? (
        <Typography.Text type="secondary">{t("billing.llm.cachedInput", { tokens: count(llm.cachedInputTokens), amount: withCurrency(llm.cachedInputAmount) })}</Typography.Text>
      ) : null}
      <div>{t("billing.llm.output", { tokens: count(llm.outputTokens), amount: withCurrency(llm.outputAmount) })}</div>
      <Tag color={llm.origin === "counted" ? "orange" : undefined}>{t(`billing.llm.origins.${llm.origin}`)}</Tag>
    </div>
  );
}
