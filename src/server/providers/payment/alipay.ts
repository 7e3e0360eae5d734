import { formatMoney, parseMoney } from "#shared/money";
import type { AlipayConfig } from "./config";
import { alipaySignContent, alipayTime, rsa2Sign, rsa2Verify, signedResponseText } from "./alipay-sign";
import {
  MalformedNotificationError,
  PaymentProviderError,
  PaymentSignatureError,
  type PaymentNotification,
  type PaymentOrderRequest,
  type PaymentProvider,
  type PaymentStart,
} from "./types";

const PAID_STATUSES = new Set(["TRADE_SUCCESS", "TRADE_FINISHED"]);
/** Alipay's amounts: yuan with at most two decimals, as in "50.00" (its limit is 100,000,000). */
const ALIPAY_AMOUNT = /^\d{1,9}(?:\.\d{1,2})?$/;

/** Alipay open platform: computer-website pay (alipay.trade.page.pay) and QR code pay (alipay.trade.precreate), RSA2. */
export function createAlipayProvider(config: AlipayConfig, fetchImpl: typeof fetch = fetch): PaymentProvider {
  function signedParams(method: string, bizContent: Record<string, string>, now: Date, extra: Record<string, string> = {}) {
    const params: Record<string, string> = {
      app_id: config.appId,
      method,
      format: "JSON",
      charset: "utf-8",
      sign_type: "RSA2",
      timestamp: alipayTime(now),
      version: "1.0",
      notify_url: config.notifyUrl,
      biz_content: JSON.stringify(bizContent),
      ...extra,
    };
    return { ...params, sign: rsa2Sign(alipaySignContent(params), config.privateKey) };
  }

  function bizContent(order: PaymentOrderRequest): Record<string, string> {
    return {
      out_trade_no: order.outTradeNo,
      // Whole cents by construction (PAYMENT amounts have at most two decimals).
      total_amount: formatMoney(order.amount),
      subject: order.subject,
      time_expire: alipayTime(order.expiresAt),
    };
  }

  async function precreate(order: PaymentOrderRequest): Promise<PaymentStart> {
    const params = signedParams("alipay.trade.precreate", bizContent(order), order.now);
    let body: string;
    try {
      const response = await fetchImpl(config.gateway, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded;charset=utf-8" },
        body: new URLSearchParams(params).toString(),
        signal: AbortSignal.timeout(10_000),
      });
      body = await response.text();
    } catch (error) {
      throw new PaymentProviderError(`Alipay did not answer: ${(error as Error).message}`);
    }
    const member = "alipay_trade_precreate_response";
    const signed = signedResponseText(body, member);
    let parsed: { [member]?: { code?: string; msg?: string; sub_msg?: string; qr_code?: string; out_trade_no?: string }; sign?: string };
    try {
      parsed = JSON.parse(body) as typeof parsed;
    } catch {
      throw new PaymentProviderError("Alipay answered with something that is not JSON");
    }
    const result = parsed[member];
    if (!signed || !parsed.sign || !rsa2Verify(signed, parsed.sign, config.alipayPublicKey)) {
      throw new PaymentProviderError(`Alipay's answer is not signed by Alipay${result?.sub_msg ? `: ${result.sub_msg}` : ""}`);
    }
    if (result?.code !== "10000" || !result.qr_code || result.out_trade_no !== order.outTradeNo) {
      throw new PaymentProviderError(`Alipay refused the order: ${result?.sub_msg ?? result?.msg ?? "no reason given"}`);
    }
    return { payUrl: null, qrCode: result.qr_code };
  }

  return {
    id: "alipay",
    channels: ["page", "qr"],
    acknowledgement: {
      accepted: { status: 200, contentType: "text/plain; charset=utf-8", body: "success" },
      rejected: { status: 400, contentType: "text/plain; charset=utf-8", body: "failure" },
    },

    async start(order) {
      if (order.channel === "qr") return precreate(order);
      const params = signedParams(
        "alipay.trade.page.pay",
        { ...bizContent(order), product_code: "FAST_INSTANT_TRADE_PAY" },
        order.now,
        { return_url: config.returnUrl },
      );
      return { payUrl: `${config.gateway}?${new URLSearchParams(params).toString()}`, qrCode: null };
    },

    verifyNotification(incoming): PaymentNotification {
      const fields = Object.fromEntries(new URLSearchParams(incoming.body));
      const signature = fields.sign;
      if (!signature || fields.sign_type !== "RSA2") throw new PaymentSignatureError("the notification is not signed with RSA2");
      if (!rsa2Verify(alipaySignContent(fields, ["sign", "sign_type"]), signature, config.alipayPublicKey)) {
        throw new PaymentSignatureError();
      }
      if (fields.app_id !== config.appId) throw new PaymentSignatureError("the notification is for another app");
      if (!fields.out_trade_no || !fields.trade_no || !fields.total_amount) {
        throw new MalformedNotificationError(`the notification for ${fields.out_trade_no || "no order"} lacks out_trade_no, trade_no or total_amount`);
      }
      if (!ALIPAY_AMOUNT.test(fields.total_amount)) {
        throw new MalformedNotificationError(`the notification for ${fields.out_trade_no} has total_amount ${JSON.stringify(fields.total_amount.slice(0, 40))}, not an amount`);
      }
      return {
        outTradeNo: fields.out_trade_no,
        providerTradeNo: fields.trade_no,
        amount: parseMoney(fields.total_amount),
        currency: "CNY",
        paid: PAID_STATUSES.has(fields.trade_status ?? ""),
      };
    },
  };
}
