import { generateKeyPairSync, randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client";
import { FakeWechatPay } from "../../providers/payment/wechatpay.fake";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { createUserWithSession, type TestUser } from "../../testing/users";
import { verifyLedger } from "../ledger/verify";
import { freePort } from "../../testing/free-port";

const merchantKeys = generateKeyPairSync("rsa", { modulusLength: 2048 });
const CERTIFICATE_SERIAL = "5157F09EFDC096DE15EBE81A47057A7232F1B8E1";


let fake: FakeWechatPay;
let t: TestApp;
let notifyUrl: string;

function wechatEnv(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    WECHATPAY_MCHID: fake.mchId,
    WECHATPAY_APPID: fake.appId,
    WECHATPAY_PRIVATE_KEY: merchantKeys.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    WECHATPAY_CERT_SERIAL: CERTIFICATE_SERIAL,
    WECHATPAY_PUBLIC_KEY: fake.publicKeyPem,
    WECHATPAY_PUBLIC_KEY_ID: fake.publicKeyId,
    WECHATPAY_APIV3_KEY: fake.apiV3Key,
    WECHATPAY_BASE_URL: fake.baseUrl,
    WECHATPAY_NOTIFY_URL: notifyUrl,
    ...overrides,
  };
}

beforeAll(async () => {
  fake = await new FakeWechatPay({ publicKey: merchantKeys.publicKey, certificateSerial: CERTIFICATE_SERIAL }, () => t.clock.now()).start();
  const port = await freePort();
  notifyUrl = `http://127.0.0.1:${port}/api/v1/payments/wechat/notify`;
  t = await createTestApp(wechatEnv());
  await t.app.listen({ port, host: "127.0.0.1" });
});
afterAll(async () => {
  await t.close();
  await fake.stop();
});

const startPayment = (who: TestUser, amount: string) =>
  t.app.inject({ method: "POST", url: "/api/v1/console/payments", headers: who.headers, payload: { method: "wechat", amount, channel: "qr" } });
const balanceOf = async (who: TestUser) =>
  (await t.app.inject({ method: "GET", url: "/api/v1/tools/user-info", headers: who.headers })).json().balance as string;
const orderStatus = async (who: TestUser, orderId: string) =>
  (await t.app.inject({ method: "GET", url: `/api/v1/console/payments/${orderId}`, headers: who.headers })).json().status as string;
const creditsFor = async (orderId: string) =>
  queryRows(t.database.db, sql`select id from ledger_entries where reference = ${orderId} and kind = 'topup' and method = 'wechat'`);

async function newOrder(amount: string) {
  const buyer = await createUserWithSession(t);
  const res = await startPayment(buyer, amount);
  expect(res.statusCode, res.body).toBe(200);
  const order = res.json() as { orderId: string; qrCode: string; payUrl: null; amount: string };
  return { buyer, order, fakeOrder: fake.order(order.orderId) };
}

describe("WeChat Pay Native (against a local fake that signs and encrypts like WeChat Pay)", () => {
  it("is offered as a QR code method when configured", async () => {
    const user = await createUserWithSession(t);
    const res = await t.app.inject({ method: "GET", url: "/api/v1/console/payment-methods", headers: user.headers });
    expect(res.json().methods).toEqual([{ id: "wechat", channels: ["qr"] }]);
    const page = await t.app.inject({ method: "POST", url: "/api/v1/console/payments", headers: user.headers, payload: { method: "wechat", amount: "5", channel: "page" } });
    expect(page.statusCode).toBe(400);
  });

  it("paid once → credited once; replays and concurrent duplicates credit nothing more", async () => {
    const { buyer, order } = await newOrder("50.00");
    expect(order).toMatchObject({ amount: "50.00", payUrl: null, qrCode: expect.stringMatching(/^weixin:\/\/wxpay\/bizpayurl\?pr=/) });
    expect(fake.requests.at(-1)).toEqual({ method: "POST", path: "/v3/pay/transactions/native", signatureValid: true });
    expect(fake.order(order.orderId)).toMatchObject({ total: 5000, currency: "CNY", notifyUrl, state: "NOTPAY" });
    expect(await orderStatus(buyer, order.orderId)).toBe("pending");

    const paid = await fake.pay(order.orderId);
    expect(paid.status).toBe(204);
    expect(await balanceOf(buyer)).toBe("50.00");
    expect(await orderStatus(buyer, order.orderId)).toBe("paid");

    expect((await fake.deliver(paid, notifyUrl)).status).toBe(204);
    const duplicates = await Promise.all(Array.from({ length: 8 }, () => fake.deliver(fake.notificationFor(fake.order(order.orderId)), notifyUrl)));
    expect(duplicates.map((d) => d.status)).toEqual(Array(8).fill(204));
    expect(await balanceOf(buyer)).toBe("50.00");
    expect(await creditsFor(order.orderId)).toHaveLength(1);
    expect((await verifyLedger(t.database.db)).problems).toEqual([]);
  });

  it("concurrent first notifications for one order credit it exactly once", async () => {
    const { buyer, order, fakeOrder } = await newOrder("7.77");
    fakeOrder.state = "SUCCESS";
    const results = await Promise.all(Array.from({ length: 10 }, () => fake.deliver(fake.notificationFor(fakeOrder), notifyUrl)));
    expect(results.every((r) => r.status === 204)).toBe(true);
    expect(await balanceOf(buyer)).toBe("7.77");
    expect(await creditsFor(order.orderId)).toHaveLength(1);
  });

  it("forged, tampered, stale or wrongly encrypted notifications credit nothing", async () => {
    const { buyer, order, fakeOrder } = await newOrder("20.00");
    fakeOrder.state = "SUCCESS";
    const genuine = fake.notificationFor(fakeOrder);
    const refused = (r: { status: number; answer: string }) => {
      expect(r.status).toBe(400);
      expect(JSON.parse(r.answer)).toMatchObject({ code: "FAIL" });
    };

    // Signed with another key than WeChat Pay's.
    refused(await fake.deliver(fake.notificationFor(fakeOrder, { signingKey: generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey }), notifyUrl));
    // The body changed after signing.
    refused(await fake.deliver({ ...genuine, body: genuine.body.replace('"summary":"支付成功"', '"summary":"paid"') }, notifyUrl));
    // Unsigned.
    refused(await fake.deliver({ headers: {}, body: genuine.body }, notifyUrl));
    // Another key id.
    refused(await fake.deliver({ ...genuine, headers: { ...genuine.headers, "wechatpay-serial": "PUB_KEY_ID_0000000000" } }, notifyUrl));
    // Stale: signed 10 minutes ago (a replay of an old notification), and from the future.
    refused(await fake.deliver(fake.notificationFor(fakeOrder, { at: new Date(t.clock.now().getTime() - 10 * 60_000) }), notifyUrl));
    refused(await fake.deliver(fake.notificationFor(fakeOrder, { at: new Date(t.clock.now().getTime() + 10 * 60_000) }), notifyUrl));
    // Encrypted with another APIv3 key.
    refused(await fake.deliver(fake.notificationFor(fakeOrder, { apiV3Key: randomBytes(16).toString("hex") }), notifyUrl));
    // Validly signed, but the ciphertext altered so that, without the tag check, it would decrypt
    // to another amount: GCM is a stream cipher, so flipping bits of "5" in `"total":2000` yields "9".
    const plain = JSON.stringify(fake.transaction(fakeOrder));
    const digit = plain.indexOf('"total":2000') + '"total":'.length;
    const tampered = fake.notificationFor(fakeOrder, { alterCiphertext: (bytes) => void (bytes[digit]! ^= "2".charCodeAt(0) ^ "9".charCodeAt(0)) });
    refused(await fake.deliver(tampered, notifyUrl));
    // Its tag alone altered.
    refused(await fake.deliver(fake.notificationFor(fakeOrder, { alterCiphertext: (bytes) => void (bytes[bytes.length - 1]! ^= 1) }), notifyUrl));

    expect(await balanceOf(buyer)).toBe("0.00");
    expect(await creditsFor(order.orderId)).toHaveLength(0);
    expect(t.logs()).toContain("payment notification refused");

    expect((await fake.deliver(genuine, notifyUrl)).status).toBe(204);
    expect(await balanceOf(buyer)).toBe("20.00");
  });

  it("an amount or currency that does not match the order credits nothing and is logged for the operator", async () => {
    const { buyer, order, fakeOrder } = await newOrder("30.00");
    fakeOrder.state = "SUCCESS";
    const cheaper = await fake.deliver(fake.notificationFor(fakeOrder, { transaction: { amount: { total: 1, currency: "CNY" } } }), notifyUrl);
    expect(cheaper.status).toBe(400);
    const dollars = await fake.deliver(fake.notificationFor(fakeOrder, { transaction: { amount: { total: 3000, currency: "USD" } } }), notifyUrl);
    expect(dollars.status).toBe(400);
    expect(await balanceOf(buyer)).toBe("0.00");
    expect(await creditsFor(order.orderId)).toHaveLength(0);
    const lines = t
      .logs()
      .split("\n")
      .filter((l) => l.includes(order.orderId) && l.includes('"operator":true'));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain("is for 30.00 CNY, the provider says 0.01 CNY");
    expect(lines[1]).toContain("the provider says 30.00 USD");
    expect(JSON.parse(lines[0]!).level).toBe(50);
  });

  it("a notification that does not say paid is checked with WeChat Pay, whose answer decides", async () => {
    const { buyer, order, fakeOrder } = await newOrder("4.00");
    const waiting = fake.notificationFor(fakeOrder, { transaction: { trade_state: "USERPAYING" } });
    expect((await fake.deliver(waiting, notifyUrl)).status).toBe(204);
    expect(fake.requests.at(-1)).toEqual({ method: "GET", path: `/v3/pay/transactions/out-trade-no/${order.orderId}`, signatureValid: true });
    expect(await balanceOf(buyer)).toBe("0.00");

    fakeOrder.state = "SUCCESS";
    expect((await fake.deliver(fake.notificationFor(fakeOrder, { transaction: { trade_state: "NOTPAY" } }), notifyUrl)).status).toBe(204);
    expect(await balanceOf(buyer)).toBe("4.00");
    expect(await creditsFor(order.orderId)).toHaveLength(1);
  });

  it("on return the order is queried: paid without a notification → credited once, and the late notification adds nothing", async () => {
    const { buyer, order } = await newOrder("9.90");
    const lost = await fake.pay(order.orderId, { notify: false });
    expect(await orderStatus(buyer, order.orderId)).toBe("paid");
    expect(await balanceOf(buyer)).toBe("9.90");
    expect(await orderStatus(buyer, order.orderId)).toBe("paid");
    expect((await fake.deliver(lost, notifyUrl)).status).toBe(204);
    expect(await balanceOf(buyer)).toBe("9.90");
    expect(await creditsFor(order.orderId)).toHaveLength(1);

    const other = await createUserWithSession(t);
    const foreign = await t.app.inject({ method: "GET", url: `/api/v1/console/payments/${order.orderId}`, headers: other.headers });
    expect(foreign.statusCode).toBe(404);
  });

  it("asks WeChat Pay about one user's pending orders at most 30 times a minute; past that the database answers", async () => {
    const { buyer, order } = await newOrder("3.00");
    const queries = () => fake.requests.filter((r) => r.path.startsWith("/v3/pay/transactions/out-trade-no/")).length;
    const before = queries();
    const checks = await Promise.all(Array.from({ length: 40 }, () => orderStatus(buyer, order.orderId)));
    expect(new Set(checks)).toEqual(new Set(["pending"]));
    expect(queries() - before).toBe(30);
    // Paid meanwhile, the notification lost: the next minute's first check finds it.
    await fake.pay(order.orderId, { notify: false });
    expect(await orderStatus(buyer, order.orderId)).toBe("pending");
    // Another user's checks are not held back.
    const other = await newOrder("1.00");
    expect(await orderStatus(other.buyer, other.order.orderId)).toBe("pending");
    expect(queries() - before).toBe(31);
    // Past its expiry and not asked about, the order is not yet known to be closed: the console keeps polling.
    await t.database.db.execute(sql`update payment_orders set expires_at = ${t.clock.now().toISOString()}::timestamptz - interval '1 second' where out_trade_no = ${order.orderId}`);
    expect(await orderStatus(buyer, order.orderId)).toBe("pending");
    t.clock.advance(60_000);
    expect(await orderStatus(buyer, order.orderId)).toBe("paid");
    expect(await balanceOf(buyer)).toBe("3.00");
  }, 60_000);

  it("a forged answer to the query is not believed", async () => {
    const { buyer, order } = await newOrder("6.00");
    fake.order(order.orderId).state = "SUCCESS";
    fake.forgeAnswers = true;
    try {
      expect(await orderStatus(buyer, order.orderId)).toBe("pending");
    } finally {
      fake.forgeAnswers = false;
    }
    expect(await balanceOf(buyer)).toBe("0.00");
    expect(await orderStatus(buyer, order.orderId)).toBe("paid");
  });

  it("a forged answer to the order request fails the top-up cleanly: 502 and no order left", async () => {
    const buyer = await createUserWithSession(t);
    fake.forgeAnswers = true;
    try {
      const res = await startPayment(buyer, "10.00");
      expect(res.statusCode).toBe(502);
      expect(res.json().code).toBe("payment_provider_failed");
    } finally {
      fake.forgeAnswers = false;
    }
    const rows = await queryRows(t.database.db, sql`select id from payment_orders where user_id = ${buyer.userId}`);
    expect(rows).toEqual([]);
  });

  it("when WeChat Pay refuses the merchant's signature, the top-up fails cleanly", async () => {
    const stranger = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const misconfigured = await createTestApp(wechatEnv({ WECHATPAY_PRIVATE_KEY: stranger.privateKey.export({ type: "pkcs8", format: "pem" }).toString() }), {
      database: t.database,
      clock: t.clock,
    });
    try {
      const buyer = await createUserWithSession(t);
      const res = await misconfigured.app.inject({
        method: "POST",
        url: "/api/v1/console/payments",
        headers: buyer.headers,
        payload: { method: "wechat", amount: "10", channel: "qr" },
      });
      expect(res.statusCode).toBe(502);
      expect(fake.requests.at(-1)).toEqual({ method: "POST", path: "/v3/pay/transactions/native", signatureValid: false });
      expect(await queryRows(t.database.db, sql`select id from payment_orders where user_id = ${buyer.userId}`)).toEqual([]);
    } finally {
      await misconfigured.close();
    }
  });

  it("other statements are not held back while WeChat Pay is slow to answer the order", async () => {
    const buyer = await createUserWithSession(t);
    const slow = fake.holdNextOrder();
    const pending = startPayment(buyer, "15.00");
    await slow.arrived;
    // While the provider holds its answer: a ledger credit and a read both complete.
    const other = await createUserWithSession(t, { balance: "3.00" });
    expect(await balanceOf(other)).toBe("3.00");
    slow.release();
    const res = await pending;
    expect(res.statusCode).toBe(200);
    expect(await orderStatus(buyer, res.json().orderId)).toBe("pending");
  });

  it("takes at most 20 orders an hour from one user; the 21st reaches neither WeChat Pay nor the database", async () => {
    const buyer = await createUserWithSession(t);
    // A request refused for its input uses none of the 20.
    for (let i = 0; i < 20; i++) {
      const pageChannel = await t.app.inject({ method: "POST", url: "/api/v1/console/payments", headers: buyer.headers, payload: { method: "wechat", amount: "1.00", channel: "page" } });
      expect([pageChannel.statusCode, pageChannel.json().message]).toEqual([400, "wechat does not offer the page channel"]);
    }
    for (let i = 0; i < 20; i++) expect((await startPayment(buyer, "1.00")).statusCode).toBe(200);
    const ordersBefore = fake.orders.size;
    const refused = await startPayment(buyer, "1.00");
    expect([refused.statusCode, refused.json()]).toEqual([429, { code: "rate_limited", message: "at most 20 top-up orders an hour; try again in 60 minutes" }]);
    expect(refused.headers["retry-after"]).toBe("3600");
    expect(fake.orders.size).toBe(ordersBefore);
    expect(await queryRows(t.database.db, sql`select id from payment_orders where user_id = ${buyer.userId}`)).toHaveLength(20);
    // Another user is not held back.
    expect((await startPayment(await createUserWithSession(t), "1.00")).statusCode).toBe(200);
    t.clock.advance(3600_000);
    expect((await startPayment(buyer, "1.00")).statusCode).toBe(200);
  });
});

describe("WeChat Pay configuration", () => {
  it("is off when unset, and refuses a partial or malformed configuration", async () => {
    const bare = await createTestApp({}, { database: t.database });
    try {
      expect(bare.config.money.wechat).toBeUndefined();
    } finally {
      await bare.close();
    }
    await expect(createTestApp({ WECHATPAY_MCHID: fake.mchId }, { database: t.database })).rejects.toThrow(/WECHATPAY_APPID.*required/);
    await expect(createTestApp(wechatEnv({ WECHATPAY_APIV3_KEY: "short" }), { database: t.database })).rejects.toThrow(/WECHATPAY_APIV3_KEY/);
    await expect(createTestApp(wechatEnv({ WECHATPAY_PUBLIC_KEY_ID: "5157F09EFDC0" }), { database: t.database })).rejects.toThrow(/PUB_KEY_ID_/);
  });
});
