import { generateKeyPairSync } from "node:crypto";
import net from "node:net";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client";
import { FakeAlipay } from "../../providers/payment/alipay.fake";
import { metricsGrowth, TEST_METRICS_TOKEN } from "../../testing/metrics";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { createUserWithSession, type TestUser } from "../../testing/users";
import { verifyLedger } from "../ledger/verify";

const appKeys = generateKeyPairSync("rsa", { modulusLength: 2048 });
const pem = (key: typeof appKeys.privateKey) => key.export({ type: "pkcs8", format: "pem" }).toString();

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let fake: FakeAlipay;
let t: TestApp;
let user: TestUser;

function alipayEnv(privateKeyPem: string, port: number): Record<string, string> {
  return {
    ALIPAY_APP_ID: fake.appId,
    // Bare base64 DER, as the Alipay console shows keys, for the public key; PEM with "\n" escapes for the private one.
    ALIPAY_PRIVATE_KEY: privateKeyPem.replace(/\n/g, "\\n"),
    ALIPAY_PUBLIC_KEY: fake.alipayPublicKeyPem.replace(/-----[^-]+-----|\s/g, ""),
    ALIPAY_GATEWAY: fake.gatewayUrl,
    ALIPAY_NOTIFY_URL: `http://127.0.0.1:${port}/api/v1/payments/alipay/notify`,
  };
}

beforeAll(async () => {
  fake = await new FakeAlipay(appKeys.publicKey).start();
  const port = await freePort();
  t = await createTestApp({ ...alipayEnv(pem(appKeys.privateKey), port), METRICS_TOKEN: TEST_METRICS_TOKEN, REFERRAL_BONUS_PERCENT: "10" });
  await t.app.listen({ port, host: "127.0.0.1" });
  user = await createUserWithSession(t);
});
afterAll(async () => {
  await t.close();
  await fake.stop();
});

const startPayment = (who: TestUser, body: object) => t.app.inject({ method: "POST", url: "/api/v1/console/payments", headers: who.headers, payload: body });
const balanceOf = async (who: TestUser) =>
  (await t.app.inject({ method: "GET", url: "/api/v1/tools/user-info", headers: who.headers })).json().balance as string;
const charges = async (who: TestUser) =>
  (await t.app.inject({ method: "GET", url: "/api/v1/console/credits", headers: who.headers })).json().items as { status: string; reference: string; method: string; amount: string }[];
const creditsFor = async (orderId: string) =>
  queryRows(t.database.db, sql`select id from ledger_entries where reference = ${orderId} and kind = 'topup'`);

describe("payment methods", () => {
  it("offers Alipay when it is configured, and nothing when it is not", async () => {
    const res = await t.app.inject({ method: "GET", url: "/api/v1/console/payment-methods", headers: user.headers });
    expect(res.json()).toEqual({ methods: [{ id: "alipay", channels: ["page", "qr"] }], minAmount: "1.00", maxAmount: "50000.00" });

    const bare = await createTestApp({}, { database: t.database });
    try {
      const none = await bare.app.inject({ method: "GET", url: "/api/v1/console/payment-methods", headers: user.headers });
      expect(none.json().methods).toEqual([]);
      const refused = await bare.app.inject({ method: "POST", url: "/api/v1/console/payments", headers: user.headers, payload: { method: "alipay", amount: "10" } });
      expect(refused.statusCode).toBe(400);
      expect(refused.json().code).toBe("payment_method_unavailable");
    } finally {
      await bare.close();
    }
  });

  it("refuses amounts below the minimum or finer than a cent", async () => {
    for (const amount of ["0.50", "1.001", "abc", "50000.01"]) {
      const res = await startPayment(user, { method: "alipay", amount, channel: "qr" });
      expect(res.statusCode, amount).toBe(400);
    }
  });
});

describe("Alipay (against a local fake that signs like Alipay)", () => {
  it("QR pay: paid once → credited once, with the referrer's bonus; the replayed notification credits nothing", async () => {
    const referrer = await createUserWithSession(t);
    const buyer = await createUserWithSession(t, { referredBy: referrer.userId });
    const res = await startPayment(buyer, { method: "alipay", amount: "50.00", channel: "qr" });
    expect(res.statusCode).toBe(200);
    const order = res.json();
    expect(order).toMatchObject({ amount: "50.00", payUrl: null, qrCode: expect.stringMatching(/^https:\/\/qr\.alipay\.com\//) });
    expect(fake.requests.at(-1)).toEqual({ method: "alipay.trade.precreate", signatureValid: true });
    expect(await charges(buyer)).toEqual([expect.objectContaining({ status: "pending", reference: order.orderId, amount: "50.00" })]);

    const counted = [
      'tollgate_payment_notifications_total{provider="alipay",result="credited"}',
      'tollgate_payment_notifications_total{provider="alipay",result="duplicate"}',
      'tollgate_topups_total{channel="alipay"}',
      'tollgate_topup_micros_total{channel="alipay"}',
      'tollgate_referral_bonuses_total{channel="alipay"}',
      'tollgate_referral_bonus_micros_total{channel="alipay"}',
    ];
    let notified!: Awaited<ReturnType<typeof fake.pay>>;
    const growth = await metricsGrowth(t.app, counted, async () => {
      notified = await fake.pay(order.orderId);
      await fake.deliver(notified.form);
    });
    expect(Object.values(growth)).toEqual([1, 1, 1, 50_000_000, 1, 5_000_000]);
    expect(await balanceOf(referrer)).toBe("5.00");
    expect(notified).toMatchObject({ status: 200, body: "success" });
    expect(await balanceOf(buyer)).toBe("50.00");
    expect(await charges(buyer)).toEqual([expect.objectContaining({ status: "succeeded", method: "alipay", reference: order.orderId, amount: "50.00" })]);

    const replayed = await fake.deliver(notified.form);
    expect(replayed).toMatchObject({ status: 200, body: "success" });
    const redelivered = await Promise.all(Array.from({ length: 5 }, () => fake.deliver(notified.form)));
    expect(redelivered.every((r) => r.body === "success")).toBe(true);
    expect(await balanceOf(buyer)).toBe("50.00");
    expect(await creditsFor(order.orderId)).toHaveLength(1);
    expect((await verifyLedger(t.database.db)).problems).toEqual([]);
  });

  it("rejects a notification with a bad signature and credits nothing", async () => {
    const buyer = await createUserWithSession(t);
    const order = (await startPayment(buyer, { method: "alipay", amount: "20", channel: "qr" })).json();
    const fakeOrder = fake.orders.get(order.orderId)!;

    const genuine = fake.notificationFor(fakeOrder);
    const forgeries = 'tollgate_payment_notifications_total{provider="alipay",result="forged"}';
    let tampered!: Awaited<ReturnType<typeof fake.deliver>>;
    expect(await metricsGrowth(t.app, [forgeries], async () => (tampered = await fake.deliver({ ...genuine, total_amount: "2000.00" })))).toEqual({ [forgeries]: 1 });
    expect(tampered).toMatchObject({ status: 400, body: "failure" });

    // Signed with another key than Alipay's.
    const forged = new FakeAlipay(appKeys.publicKey).notificationFor(fakeOrder);
    expect((await fake.deliver(forged)).body).toBe("failure");

    const unsigned = { ...genuine };
    delete (unsigned as Record<string, string>).sign;
    expect((await fake.deliver(unsigned)).status).toBe(400);

    expect(await balanceOf(buyer)).toBe("0.00");
    expect(await creditsFor(order.orderId)).toHaveLength(0);
    expect(await charges(buyer)).toEqual([expect.objectContaining({ status: "pending" })]);

    expect((await fake.deliver(genuine)).body).toBe("success");
    expect(await balanceOf(buyer)).toBe("20.00");
  });

  it("refuses a validly signed notification whose amount is malformed: 400, an error line for the operator, nothing credited", async () => {
    const buyer = await createUserWithSession(t);
    const order = (await startPayment(buyer, { method: "alipay", amount: "7", channel: "qr" })).json();
    const fakeOrder = fake.orders.get(order.orderId)!;
    for (const total_amount of ["7.0.0", "7e0", "-7.00", "7.001", " 7.00"]) {
      const refused = await fake.deliver(fake.notificationFor(fakeOrder, { total_amount }));
      expect([refused.status, refused.body], total_amount).toEqual([400, "failure"]);
    }
    const logged = t
      .logs()
      .split("\n")
      .filter((line) => line.includes(order.orderId) && line.includes("signed but malformed"))
      .map((line) => JSON.parse(line) as { level: number; operator: boolean; reason: string });
    expect(logged.map((l) => [l.level, l.operator])).toEqual(Array.from({ length: 5 }, () => [50, true]));
    expect(logged[0]!.reason).toContain('total_amount "7.0.0"');
    expect(await balanceOf(buyer)).toBe("0.00");
    expect(await creditsFor(order.orderId)).toHaveLength(0);
    expect(await charges(buyer)).toEqual([expect.objectContaining({ status: "pending" })]);

    // Alipay retries; its well-formed notification still credits once.
    expect((await fake.pay(order.orderId)).body).toBe("success");
    expect(await balanceOf(buyer)).toBe("7.00");
    expect((await verifyLedger(t.database.db)).problems).toEqual([]);
  });

  it("ignores notifications about unpaid states and refuses unknown orders", async () => {
    const buyer = await createUserWithSession(t);
    const order = (await startPayment(buyer, { method: "alipay", amount: "3", channel: "qr" })).json();
    const fakeOrder = fake.orders.get(order.orderId)!;
    expect((await fake.deliver(fake.notificationFor(fakeOrder, { trade_status: "WAIT_BUYER_PAY" }))).body).toBe("success");
    expect(await balanceOf(buyer)).toBe("0.00");
    const unknown = fake.notificationFor({ ...fakeOrder, outTradeNo: "TG-NOT-OURS" });
    expect((await fake.deliver(unknown, fakeOrder.notifyUrl)).body).toBe("failure");
  });

  it("page pay: a signed URL to Alipay's cashier, which the fake accepts only untampered", async () => {
    const buyer = await createUserWithSession(t);
    const order = (await startPayment(buyer, { method: "alipay", amount: "12.30", channel: "page" })).json();
    expect(order.qrCode).toBeNull();
    const payUrl = new URL(order.payUrl);
    expect(`${payUrl.origin}${payUrl.pathname}`).toBe(fake.gatewayUrl);
    expect(payUrl.searchParams.get("method")).toBe("alipay.trade.page.pay");
    expect(payUrl.searchParams.get("return_url")).toBe("http://localhost:3000/console/charge-details");
    const cashier = await fetch(payUrl);
    expect(cashier.status).toBe(200);
    expect(await cashier.text()).toContain("Pay ¥12.30");

    const biz = JSON.parse(payUrl.searchParams.get("biz_content")!);
    payUrl.searchParams.set("biz_content", JSON.stringify({ ...biz, total_amount: "0.01" }));
    const tampered = await fetch(payUrl);
    expect(tampered.status).toBe(400);

    expect((await fake.pay(order.orderId)).body).toBe("success");
    expect(await balanceOf(buyer)).toBe("12.30");
  });

  it("when Alipay refuses the app's signature, the user gets 502 and no order is left behind", async () => {
    const stranger = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const misconfigured = await createTestApp(alipayEnv(pem(stranger.privateKey), 1), { database: t.database });
    try {
      const buyer = await createUserWithSession(t);
      const res = await misconfigured.app.inject({
        method: "POST",
        url: "/api/v1/console/payments",
        headers: buyer.headers,
        payload: { method: "alipay", amount: "10", channel: "qr" },
      });
      expect(res.statusCode).toBe(502);
      expect(res.json().code).toBe("payment_provider_failed");
      expect(fake.requests.at(-1)).toEqual({ method: "alipay.trade.precreate", signatureValid: false });
      expect(await charges(buyer)).toEqual([]);
    } finally {
      await misconfigured.close();
    }
  });
});
