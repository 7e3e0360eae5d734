import { generateKeyPairSync, randomBytes, type KeyObject } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { alipaySignContent, alipayTime, rsa2Sign, rsa2Verify } from "./alipay-sign";

interface FakeOrder {
  outTradeNo: string;
  totalAmount: string;
  subject: string;
  notifyUrl: string;
  returnUrl: string | undefined;
  tradeNo: string;
  paid: boolean;
}

export interface FakeNotification {
  form: Record<string, string>;
  status: number;
  body: string;
}

/**
 * A local stand-in for Alipay's gateway that behaves like it where the app can tell: it checks
 * every request's RSA2 signature with the app's public key, answers precreate with a response
 * signed by its own key, serves a cashier page for page pay, and, when an order is paid, posts
 * the asynchronous notification, signed like Alipay's, to the order's notify_url.
 */
export class FakeAlipay {
  readonly appId = "2021000000000001";
  /** Alipay's key pair; the app is configured with the public half. */
  private readonly alipayKeys = generateKeyPairSync("rsa", { modulusLength: 2048 });
  readonly orders = new Map<string, FakeOrder>();
  /** Every gateway request, with whether its signature verified. */
  readonly requests: { method: string; signatureValid: boolean }[] = [];
  private server: http.Server | undefined;
  private base = "";

  /** @param appPublicKey the app's public key, as uploaded to the Alipay console */
  constructor(private readonly appPublicKey: KeyObject) {}

  get alipayPublicKeyPem(): string {
    return this.alipayKeys.publicKey.export({ type: "spki", format: "pem" }).toString();
  }

  get gatewayUrl(): string {
    return `${this.base}/gateway.do`;
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** The user pays: the order is marked paid and the notification goes out. */
  async pay(outTradeNo: string): Promise<FakeNotification> {
    const order = this.orders.get(outTradeNo);
    if (!order) throw new Error(`the fake has no order ${outTradeNo}`);
    order.paid = true;
    return this.deliver(this.notificationFor(order));
  }

  /** The notification Alipay would send for a paid order, signed with Alipay's key. */
  notificationFor(order: FakeOrder, overrides: Record<string, string> = {}): Record<string, string> {
    const form: Record<string, string> = {
      notify_time: alipayTime(new Date()),
      notify_type: "trade_status_sync",
      notify_id: randomBytes(16).toString("hex"),
      app_id: this.appId,
      charset: "utf-8",
      version: "1.0",
      sign_type: "RSA2",
      trade_no: order.tradeNo,
      out_trade_no: order.outTradeNo,
      trade_status: "TRADE_SUCCESS",
      total_amount: order.totalAmount,
      receipt_amount: order.totalAmount,
      buyer_id: "2088102177846880",
      subject: order.subject,
      gmt_payment: alipayTime(new Date()),
      ...overrides,
    };
    return { ...form, sign: rsa2Sign(alipaySignContent(form, ["sign", "sign_type"]), this.alipayKeys.privateKey) };
  }

  /** Posts a notification form to the order's notify_url, as Alipay does (and again on a retry). */
  async deliver(form: Record<string, string>, notifyUrl?: string): Promise<FakeNotification> {
    const url = notifyUrl ?? this.orders.get(form.out_trade_no ?? "")?.notifyUrl;
    if (!url) throw new Error("no notify_url for this notification");
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded; charset=utf-8" },
      body: new URLSearchParams(form).toString(),
    });
    return { form, status: response.status, body: await response.text() };
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", this.base);
    if (url.pathname === "/pay" && req.method === "POST") {
      const outTradeNo = new URLSearchParams(await readBody(req)).get("out_trade_no") ?? "";
      const order = this.orders.get(outTradeNo);
      if (!order) return void res.writeHead(404).end("no such order");
      await this.pay(outTradeNo);
      res.writeHead(302, { location: order.returnUrl ?? "/" }).end();
      return;
    }
    if (url.pathname !== "/gateway.do") return void res.writeHead(404).end();
    const params = Object.fromEntries(req.method === "POST" ? new URLSearchParams(await readBody(req)) : url.searchParams);
    const signatureValid =
      params.sign_type === "RSA2" && params.app_id === this.appId && rsa2Verify(alipaySignContent(params), params.sign ?? "", this.appPublicKey);
    this.requests.push({ method: params.method ?? "", signatureValid });
    const biz = JSON.parse(params.biz_content ?? "{}") as { out_trade_no?: string; total_amount?: string; subject?: string };

    if (params.method === "alipay.trade.precreate") {
      const member = "alipay_trade_precreate_response";
      const result = signatureValid
        ? { code: "10000", msg: "Success", out_trade_no: biz.out_trade_no, qr_code: `https://qr.alipay.com/fake${randomBytes(6).toString("hex")}` }
        : { code: "40002", msg: "Invalid Arguments", sub_code: "isv.invalid-signature", sub_msg: "验签出错" };
      if (signatureValid) this.remember(params, biz);
      const text = JSON.stringify(result);
      res.writeHead(200, { "content-type": "application/json;charset=utf-8" });
      res.end(`{"${member}":${text},"sign":"${rsa2Sign(text, this.alipayKeys.privateKey)}"}`);
      return;
    }
    if (params.method === "alipay.trade.page.pay") {
      if (!signatureValid) return void res.writeHead(400, { "content-type": "text/plain; charset=utf-8" }).end("invalid-signature");
      const order = this.remember(params, biz);
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(
        `<!DOCTYPE html><title>Alipay (fake cashier)</title><h1>Pay ¥${order.totalAmount}</h1><p>${order.subject}</p>` +
          `<form method="post" action="/pay"><input type="hidden" name="out_trade_no" value="${order.outTradeNo}"><button>Pay</button></form>`,
      );
      return;
    }
    res.writeHead(400).end("unknown method");
  }

  private remember(params: Record<string, string>, biz: { out_trade_no?: string; total_amount?: string; subject?: string }): FakeOrder {
    const order: FakeOrder = {
      outTradeNo: biz.out_trade_no ?? "",
      totalAmount: biz.total_amount ?? "",
      subject: biz.subject ?? "",
      notifyUrl: params.notify_url ?? "",
      returnUrl: params.return_url,
      tradeNo: `2026${randomBytes(10).toString("hex")}`,
      paid: false,
    };
    this.orders.set(order.outTradeNo, order);
    return order;
  }
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => resolve(body));
    req.on("error", reject);
  });
}
