import { beijingIso } from "#shared/beijing-time";
import type { WechatPayConfig } from "./config";
import {
  PaymentProviderError,
  PaymentSignatureError,
  type PaymentNotification,
  type PaymentOrderRequest,
  type PaymentProvider,
  type PaymentStart,
} from "./types";
import { decryptResource, wechatpayAuthorization, wechatpaySignatureProblem, type EncryptedResource } from "./wechatpay-sign";

const MICROS_PER_FEN = 10_000n;
const ORDER_TIMEOUT_MS = 10_000;
/** A query made while a notification waits for its answer must leave room within WeChat Pay's 5 s. */
const QUERY_TIMEOUT_MS = 3_000;

/** A transaction as WeChat Pay describes it, in a notification's resource or a query's answer. */
interface Transaction {
  mchid?: string;
  appid?: string;
  out_trade_no?: string;
  transaction_id?: string;
  trade_state?: string;
  amount?: { total?: number; currency?: string };
}

/** WeChat Pay API v3, Native payment (a QR code the user scans), with WeChat Pay identified by its public key. */
export function createWechatPayProvider(config: WechatPayConfig): PaymentProvider {
  const platform = { publicKey: config.platformPublicKey, publicKeyId: config.platformPublicKeyId };

  /** One signed call; the answer is believed only once its Wechatpay-Signature verifies. */
  async function call(method: "GET" | "POST", pathAndQuery: string, payload: object | null, now: Date, timeoutMs: number) {
    const body = payload ? JSON.stringify(payload) : "";
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${config.baseUrl}${pathAndQuery}`, {
        method,
        headers: {
          authorization: wechatpayAuthorization({ method, pathAndQuery, body }, config, now),
          accept: "application/json",
          "wechatpay-serial": config.platformPublicKeyId,
          ...(payload ? { "content-type": "application/json" } : {}),
        },
        body: payload ? body : undefined,
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      throw new PaymentProviderError(`WeChat Pay did not answer: ${(error as Error).message}`);
    }
    const problem = wechatpaySignatureProblem(Object.fromEntries(response.headers), text, platform, now);
    if (problem) throw new PaymentProviderError(`WeChat Pay's answer is not signed by WeChat Pay (${problem}, HTTP ${response.status})`);
    let json: Record<string, unknown>;
    try {
      json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      throw new PaymentProviderError("WeChat Pay answered with something that is not JSON");
    }
    return { status: response.status, json };
  }

  function facts(transaction: Transaction): PaymentNotification {
    if (transaction.mchid !== config.mchId || transaction.appid !== config.appId) {
      throw new PaymentSignatureError("the transaction is for another merchant or app");
    }
    const total = transaction.amount?.total;
    if (!transaction.out_trade_no || !Number.isSafeInteger(total) || (total as number) < 0 || !transaction.amount?.currency) {
      throw new PaymentSignatureError("the transaction lacks out_trade_no or amount");
    }
    return {
      outTradeNo: transaction.out_trade_no,
      providerTradeNo: transaction.transaction_id ?? "",
      amount: BigInt(total as number) * MICROS_PER_FEN,
      currency: transaction.amount.currency,
      paid: transaction.trade_state === "SUCCESS",
    };
  }

  async function native(order: PaymentOrderRequest): Promise<PaymentStart> {
    const { status, json } = await call(
      "POST",
      "/v3/pay/transactions/native",
      {
        appid: config.appId,
        mchid: config.mchId,
        description: order.subject.slice(0, 127),
        out_trade_no: order.outTradeNo,
        time_expire: beijingIso(order.expiresAt),
        notify_url: config.notifyUrl,
        // Whole fen by construction (payment amounts have at most two decimals).
        amount: { total: Number(order.amount / MICROS_PER_FEN), currency: "CNY" },
      },
      order.now,
      ORDER_TIMEOUT_MS,
    );
    if (status !== 200 || typeof json.code_url !== "string" || json.code_url === "") {
      throw new PaymentProviderError(`WeChat Pay refused the order: ${typeof json.message === "string" ? json.message : `HTTP ${status}`}`);
    }
    return { payUrl: null, qrCode: json.code_url };
  }

  return {
    id: "wechat",
    channels: ["qr"],
    acknowledgement: {
      accepted: { status: 204, contentType: "application/json; charset=utf-8", body: "" },
      rejected: { status: 400, contentType: "application/json; charset=utf-8", body: JSON.stringify({ code: "FAIL", message: "rejected" }) },
    },

    start: native,

    verifyNotification(incoming, now) {
      const problem = wechatpaySignatureProblem(incoming.headers, incoming.body, platform, now);
      if (problem) throw new PaymentSignatureError(`the notification's signature does not verify (${problem})`);
      let resource: EncryptedResource;
      try {
        const parsed = JSON.parse(incoming.body) as { resource?: EncryptedResource };
        if (!parsed.resource || typeof parsed.resource.ciphertext !== "string" || typeof parsed.resource.nonce !== "string") throw new Error();
        resource = parsed.resource;
      } catch {
        throw new PaymentSignatureError("the notification has no encrypted resource");
      }
      let transaction: Transaction;
      try {
        transaction = JSON.parse(decryptResource(resource, config.apiV3Key)) as Transaction;
      } catch {
        throw new PaymentSignatureError("the notification's resource does not decrypt with the APIv3 key");
      }
      return facts(transaction);
    },

    async queryOrder(outTradeNo, now) {
      const path = `/v3/pay/transactions/out-trade-no/${encodeURIComponent(outTradeNo)}?mchid=${encodeURIComponent(config.mchId)}`;
      const { status, json } = await call("GET", path, null, now, QUERY_TIMEOUT_MS);
      if (status === 404) return null;
      if (status !== 200) throw new PaymentProviderError(`WeChat Pay refused the query: ${typeof json.message === "string" ? json.message : `HTTP ${status}`}`);
      let found: PaymentNotification;
      try {
        found = facts(json as Transaction);
      } catch (error) {
        throw new PaymentProviderError(`WeChat Pay's answer to the query is unusable: ${(error as Error).message}`);
      }
      if (found.outTradeNo !== outTradeNo) throw new PaymentProviderError("WeChat Pay answered about another order");
      return found;
    },
  };
}
