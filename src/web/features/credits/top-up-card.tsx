import { useEffect, useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Button, Card, Input, Modal, QRCode, Space, Typography } from "antd";
import type { CreatePaymentResponse } from "#shared/money-api";
import { paymentAmountProblem, type PaymentChannel, type PaymentProviderId } from "#shared/money-rules";
import { useT, type MessageKey } from "../../i18n";
import { ApiError } from "../../lib/http";
import { toast } from "../../lib/toast";
import { refreshUserInfo } from "../../lib/api/get-user-info";
import { createPayment } from "./api/create-payment";
import { creditsQueryKey } from "./api/list-credits";
import { paymentStatusQueryOptions } from "./api/get-payment-status";
import { paymentMethodsQueryOptions } from "./api/get-payment-methods";
import { withCurrency } from "../../lib/money-format";

const PAYMENT_POLL_MS = 3000;

/** Watches the order until it is paid (the server asks the provider while it is pending). */
function QrPayment({ order, method, onClose }: { order: CreatePaymentResponse; method: string; onClose(): void }) {
  const t = useT();
  const queryClient = useQueryClient();
  const { data } = useQuery({ ...paymentStatusQueryOptions(order.orderId), refetchInterval: PAYMENT_POLL_MS });
  const paid = data?.status === "paid";
  useEffect(() => {
    if (!paid) return;
    toast("success", t("credits.paid", { amount: withCurrency(order.amount) }));
    void refreshUserInfo();
    void queryClient.invalidateQueries({ queryKey: creditsQueryKey });
    onClose();
  }, [paid, order.amount, onClose, queryClient, t]);
  return (
    <Modal open footer={null} onCancel={onClose} title={t("credits.scanToPay", { method, amount: withCurrency(order.amount) })} maskClosable={false}>
      <Space direction="vertical" align="center" style={{ width: "100%" }}>
        <QRCode value={order.qrCode ?? ""} size={220} data-testid="payment-qr" />
        <Typography.Text type="secondary">{t("credits.waitingForPayment")}</Typography.Text>
        <Button onClick={onClose}>{t("credits.close")}</Button>
      </Space>
    </Modal>
  );
}

/** Online top-up with the payment methods the site has enabled; nothing at all when there are none. */
export function TopUpCard() {
  const t = useT();
  const { data } = useQuery(paymentMethodsQueryOptions());
  const [amount, setAmount] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [qrOrder, setQrOrder] = useState<{ order: CreatePaymentResponse; method: string } | null>(null);
  if (!data || data.methods.length === 0) return null;
  const methodName = (id: PaymentProviderId) => t(`credits.methods.${id}` as MessageKey);

  const pay = async (method: PaymentProviderId, channel: PaymentChannel) => {
    if (paymentAmountProblem(amount) !== null) {
      return setError(t("credits.amountInvalid", { min: withCurrency(data.minAmount), max: withCurrency(data.maxAmount) }));
    }
    setError(null);
    setBusy(`${method}:${channel}`);
    try {
      const order = await createPayment({ method, channel, amount: amount.trim() });
      if (order.payUrl) window.location.assign(order.payUrl);
      else setQrOrder({ order, method: methodName(method) });
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
    } finally {
      setBusy(null);
    }
  };

  return (
    <Card title={t("credits.topUpTitle")} data-testid="top-up-card">
      <Space direction="vertical">
        <Input
          prefix={withCurrency("").trim()}
          value={amount}
          onChange={(e) => {
            setAmount(e.target.value);
            setError(null);
          }}
          inputMode="decimal"
          placeholder={t("credits.amount")}
          aria-label={t("credits.amount")}
          status={error ? "error" : undefined}
          style={{ maxWidth: 240 }}
          data-testid="top-up-amount"
        />
        {error ? <Typography.Text type="danger">{error}</Typography.Text> : null}
        <Space wrap>
          {data.methods.flatMap((m) =>
            m.channels.map((channel) => (
              <Button
                key={`${m.id}:${channel}`}
                type={channel === "page" ? "primary" : "default"}
                loading={busy === `${m.id}:${channel}`}
                onClick={() => void pay(m.id, channel)}
                data-testid={`pay-${m.id}-${channel}`}
              >
                {channel === "page" ? t("credits.payWith", { method: methodName(m.id) }) : `${methodName(m.id)} · ${t("credits.payByQr")}`}
              </Button>
            )),
          )}
        </Space>
      </Space>
      {qrOrder ? <QrPayment order={qrOrder.order} method={qrOrder.method} onClose={() => setQrOrder(null)} /> : null}
    </Card>
  );
}
