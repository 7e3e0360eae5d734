import { beijingIso } from "#shared/beijing-time";
import { createCipheriv, generateKeyPairSync, randomBytes, randomUUID, type KeyObject } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { TIMESTAMP_TOLERANCE_SECONDS, parseAuthorization, wechatpaySign, wechatpayVerify } from "./wechatpay-sign";

export interface FakeWechatOrder {
  outTradeNo: string;
  total: number;
  currency: string;
  notifyUrl: string;
  transactionId: string;
  state: "NOTPAY" | "SUCCESS";
}

/** A notification as WeChat Pay posts it: signed headers and a JSON body with the encrypted transaction. */
export interface FakeNotification {
  headers: Record<string, string>;
  body: string;
}

export interface NotificationOptions {
  /** Changes to the transaction inside the encrypted resource (an amount that does not match, another state…). */
  transaction?: Record<string, unknown>;
  /** When the notification says it was signed; stale when far from the app's clock. */
  at?: Date;
  /** Signs with this key instead of WeChat Pay's: a forgery. */
  signingKey?: KeyObject;
  /** Encrypts with this key instead of the merchant's APIv3 key. */
  apiV3Key?: string;
  /** Alters the encrypted bytes (tag included) before the notification is signed. */
  alterCiphertext?: (bytes: Buffer) => void;
}

/**
 * A local stand-in for WeChat Pay API v3 that behaves like it where the app can tell: it checks
 * each request's WECHATPAY2-SHA256-RSA2048 Authorization with the merchant's public key and
 * certificate serial, answers Native orders and order queries with responses signed by its own
 * key (announced as a PUB_KEY_ID_… public key), and posts notifications encrypted with the APIv3
 * key (AEAD_AES_256_GCM) and signed, to the order's notify_url.
 */
export class FakeWechatPay {
  readonly mchId = "1900000109";
  readonly appId = "wxd678efh567hg6787";
  readonly publicKeyId = "PUB_KEY_ID_0119000001092026030100000000000001";
  readonly apiV3Key = randomBytes(16).toString("hex");
  private readonly platformKeys = generateKeyPairSync("rsa", { modulusLength: 2048 });
  readonly orders = new Map<string, FakeWechatOrder>();
  /** Every API request, with whether its signature verified. */
  readonly requests: { method: string; path: string; signatureValid: boolean }[] = [];
  /** When true, answers are signed with a key that is not WeChat Pay's. */
  forgeAnswers = false;
  private held: { release: () => void; reached: () => void; gate: Promise<void>; arrived: Promise<void> } | null = null;
  private server: http.Server | undefined;
  private base = "";

  /**
   * @param merchant the merchant's public key (from its API certificate) and that certificate's serial
   * @param clock WeChat Pay's clock, for the timestamps it signs and checks
   */
  constructor(
    private readonly merchant: { publicKey: KeyObject; certificateSerial: string },
    private readonly clock: () => Date = () => new Date(),
  ) {}

  get publicKeyPem(): string {
    return this.platformKeys.publicKey.export({ type: "spki", format: "pem" }).toString();
  }

  get baseUrl(): string {
    return this.base;
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.held?.release();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /**
   * Holds the next order request until `release()`: a slow WeChat Pay. `arrived` settles once
   * the request is in.
   */
  holdNextOrder(): { arrived: Promise<void>; release: () => void } {
    let release = () => {};
    let reached = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const arrived = new Promise<void>((resolve) => (reached = resolve));
    this.held = { release, reached, gate, arrived };
    return { arrived, release };
  }

  /** The user scans and pays: the order is paid and, unless told otherwise, the notification goes out. */
  async pay(outTradeNo: string, options: { notify?: boolean } = {}): Promise<FakeNotification & { status: number; answer: string }> {
    const order = this.order(outTradeNo);
    order.state = "SUCCESS";
    const notification = this.notificationFor(order);
    if (options.notify === false) return { ...notification, status: 0, answer: "" };
    return { ...notification, ...(await this.deliver(notification, order.notifyUrl)) };
  }

  order(outTradeNo: string): FakeWechatOrder {
    const order = this.orders.get(outTradeNo);
    if (!order) throw new Error(`the fake has no order ${outTradeNo}`);
    return order;
  }

  transaction(order: FakeWechatOrder): Record<string, unknown> {
    return {
      appid: this.appId,
      mchid: this.mchId,
      out_trade_no: order.outTradeNo,
      transaction_id: order.transactionId,
      trade_type: "NATIVE",
      trade_state: order.state,
      trade_state_desc: order.state === "SUCCESS" ? "支付成功" : "未支付",
      bank_type: "OTHERS",
      attach: "",
      ...(order.state === "SUCCESS" ? { success_time: beijingIso(this.clock()) } : {}),
      payer: { openid: "oUpF8uMuAJO_M2pxb1Q9zNjWeS6o" },
      amount: { total: order.total, payer_total: order.total, currency: order.currency, payer_currency: order.currency },
    };
  }

  /** The notification WeChat Pay would send about the order, with the given departures from it. */
  notificationFor(order: FakeWechatOrder, options: NotificationOptions = {}): FakeNotification {
    const plaintext = JSON.stringify({ ...this.transaction(order), ...options.transaction });
    const nonce = randomBytes(6).toString("hex");
    const cipher = createCipheriv("aes-256-gcm", Buffer.from(options.apiV3Key ?? this.apiV3Key, "utf8"), Buffer.from(nonce, "utf8"));
    cipher.setAAD(Buffer.from("transaction", "utf8"));
    const bytes = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
    options.alterCiphertext?.(bytes);
    const at = options.at ?? this.clock();
    const body = JSON.stringify({
      id: randomUUID(),
      create_time: beijingIso(at),
      resource_type: "encrypt-resource",
      event_type: "TRANSACTION.SUCCESS",
      summary: "支付成功",
      resource: { original_type: "transaction", algorithm: "AEAD_AES_256_GCM", ciphertext: bytes.toString("base64"), associated_data: "transaction", nonce },
    });
    return { headers: this.signatureHeaders(body, at, options.signingKey), body };
  }

  /** Posts a notification as WeChat Pay does (and again on a retry). */
  async deliver(notification: FakeNotification, notifyUrl: string): Promise<{ status: number; answer: string }> {
    const response = await fetch(notifyUrl, {
      method: "POST",
      headers: { ...notification.headers, "content-type": "application/json" },
      body: notification.body,
    });
    return { status: response.status, answer: await response.text() };
  }

  private signatureHeaders(body: string, at: Date, key?: KeyObject): Record<string, string> {
    const timestamp = String(Math.floor(at.getTime() / 1000));
    const nonce = randomBytes(16).toString("hex").toUpperCase();
    return {
      "wechatpay-timestamp": timestamp,
      "wechatpay-nonce": nonce,
      "wechatpay-serial": this.publicKeyId,
      "wechatpay-signature": wechatpaySign([timestamp, nonce, body], key ?? this.platformKeys.privateKey),
      "wechatpay-signature-type": "WECHATPAY2-SHA256-RSA2048",
    };
  }

  private answer(res: http.ServerResponse, status: number, json: object | null): void {
    const body = json ? JSON.stringify(json) : "";
    const key = this.forgeAnswers ? generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey : undefined;
    res.writeHead(status, { "content-type": "application/json; charset=utf-8", "request-id": randomUUID(), ...this.signatureHeaders(body, this.clock(), key) });
    res.end(body);
  }

  private requestSignatureValid(req: http.IncomingMessage, body: string): boolean {
    const auth = parseAuthorization(req.headers.authorization);
    if (!auth || auth.mchid !== this.mchId || auth.serial_no !== this.merchant.certificateSerial) return false;
    if (!auth.timestamp || Math.abs(Number(auth.timestamp) - this.clock().getTime() / 1000) > TIMESTAMP_TOLERANCE_SECONDS) return false;
    return wechatpayVerify([req.method ?? "", req.url ?? "", auth.timestamp, auth.nonce_str ?? "", body], auth.signature ?? "", this.merchant.publicKey);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const body = await readBody(req);
    const url = new URL(req.url ?? "/", this.base);
    // Not WeChat Pay's API: the phone that scans the code and pays, for browser tests.
    if (req.method === "POST" && url.pathname === "/fake/scan-and-pay") {
      const outTradeNo = url.searchParams.get("out_trade_no") ?? "";
      if (!this.orders.has(outTradeNo)) return void res.writeHead(404).end("no such order");
      const { status } = await this.pay(outTradeNo);
      return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ notified: status }));
    }
    const signatureValid = this.requestSignatureValid(req, body);
    this.requests.push({ method: req.method ?? "", path: url.pathname, signatureValid });
    if (!signatureValid) return this.answer(res, 401, { code: "SIGN_ERROR", message: "签名错误" });

    if (req.method === "POST" && url.pathname === "/v3/pay/transactions/native") {
      const held = this.held;
      if (held) {
        this.held = null;
        held.reached();
        await held.gate;
      }
      const order = JSON.parse(body) as { appid?: string; mchid?: string; out_trade_no?: string; notify_url?: string; amount?: { total?: number; currency?: string } };
      if (order.mchid !== this.mchId || order.appid !== this.appId || !order.out_trade_no || !order.notify_url || !Number.isInteger(order.amount?.total)) {
        return this.answer(res, 400, { code: "PARAM_ERROR", message: "参数错误" });
      }
      this.orders.set(order.out_trade_no, {
        outTradeNo: order.out_trade_no,
        total: order.amount!.total!,
        currency: order.amount?.currency ?? "CNY",
        notifyUrl: order.notify_url,
        transactionId: `4200${randomBytes(12).toString("hex").replace(/\D/g, "").padEnd(24, "7")}`,
        state: "NOTPAY",
      });
      return this.answer(res, 200, { code_url: `weixin://wxpay/bizpayurl?pr=${randomBytes(5).toString("hex")}` });
    }
    const query = /^\/v3\/pay\/transactions\/out-trade-no\/([^/]+)$/.exec(url.pathname);
    if (req.method === "GET" && query && url.searchParams.get("mchid") === this.mchId) {
      const order = this.orders.get(decodeURIComponent(query[1]!));
      if (!order) return this.answer(res, 404, { code: "ORDER_NOT_EXIST", message: "订单不存在" });
      return this.answer(res, 200, this.transaction(order));
    }
    this.answer(res, 404, { code: "NOT_FOUND", message: "no such API" });
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
