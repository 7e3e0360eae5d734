import { useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { Button, Card, Form, Input } from "antd";
import { normalizeRedemptionCode } from "#shared/redemption-code";
import { useT, type MessageKey } from "../../i18n";
import { ApiError } from "../../lib/http";
import { toast } from "../../lib/toast";
import { refreshUserInfo } from "../../lib/api/get-user-info";
import { creditsQueryKey } from "./api/list-credits";
import { redeemCode } from "./api/redeem-code";
import { withCurrency } from "../../lib/money-format";

/** Redeem a code: the balance in the header and the list below update as soon as it is credited. */
const REFUSALS: Record<string, MessageKey> = {
  redemption_code_unknown: "credits.redeemUnknown",
  redemption_code_used: "credits.redeemUsed",
  redemption_code_expired: "credits.redeemExpired",
  redemption_code_void: "credits.redeemVoid",
};

export function RedeemForm() {
  const t = useT();
  const queryClient = useQueryClient();
  const [code, setCode] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async () => {
    if (!code.trim()) return setError(t("credits.redeemRequired"));
    if (!normalizeRedemptionCode(code)) return setError(t("credits.redeemInvalid"));
    setError(null);
    setBusy(true);
    try {
      const result = await redeemCode(code);
      setCode("");
      toast("success", t("credits.redeemed", { amount: withCurrency(result.amount) }));
      await Promise.all([refreshUserInfo(), queryClient.invalidateQueries({ queryKey: creditsQueryKey })]);
    } catch (e) {
      if (e instanceof ApiError && (e.status === 400 || e.status === 429)) setError(t(e.status === 429 ? "errors.tooManyRequests" : (REFUSALS[e.code ?? ""] ?? "credits.redeemInvalid")));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card title={t("credits.redeemTitle")} data-testid="redeem-card">
      <Form layout="inline" onFinish={() => void submit()} className="redeem-form">
        <Form.Item
          label={t("credits.redeemLabel")}
          validateStatus={error ? "error" : undefined}
          help={error ?? undefined}
          className="redeem-code-item"
        >
          <Input
            value={code}
            onChange={(e) => {
              setCode(e.target.value);
              setError(null);
            }}
            placeholder={t("credits.redeemPlaceholder")}
            autoComplete="off"
            spellCheck={false}
            maxLength={64}
            aria-label={t("credits.redeemLabel")}
            data-testid="redeem-code"
          />
        </Form.Item>
        <Form.Item>
          <Button type="primary" htmlType="submit" loading={busy} data-testid="redeem-submit">
            {t("credits.redeem")}
          </Button>
        </Form.Item>
      </Form>
    </Card>
  );
}
