import { createHmac, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseMoney } from "#shared/money";
import { alertAttempts, alertDeliveries, idempotencyKeys } from "../../db/schema/index";
import { queryRows } from "../../db/client";
import { createSealer } from "../../lib/crypto";
import { readOutbox } from "../../testing/sms-outbox";
import { tempDataDir } from "../../testing/temp-dir";
import { metricsGrowth, TEST_METRICS_TOKEN } from "../../testing/metrics";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { createUserWithSession, type TestUser } from "../../testing/users";
import { chargeBatch } from "../ledger/charges";
import { refundBatch } from "../ledger/index";
import { credit } from "../ledger/ledger";
import { deliverDue, findCrossings, FINISHED_DELIVERY_RETENTION_MS, purgeFinishedDeliveries } from "./outbox";
import { queueTestEvent } from "./settings";

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let t: TestApp;
let dataDir: string;
let receiver: http.Server;
let base = "";
let received: Received[] = [];
/** Answers the receiver gives next, in order; 204 once they run out. */
let answers: number[] = [];
/** While set, the receiver tells `arrived` of each request and answers it only once `until` resolves. */
let hold: { until: Promise<void>; arrived(): void } | null = null;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      received.push({ path: req.url ?? "", headers: req.headers, body });
      const status = answers.shift() ?? 204;
      if (!hold) return void res.writeHead(status).end();
      hold.arrived();
      void hold.until.then(() => res.writeHead(status).end());
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  dataDir = tempDataDir();
  t = await createTestApp({ DATA_DIR: dataDir, ALERT_WEBHOOK_ALLOW_LOOPBACK: "true", ALERT_JOB_SECONDS: "3600", METRICS_TOKEN: TEST_METRICS_TOKEN });
});
afterAll(async () => {
  await t.close();
  receiver.closeAllConnections();
  receiver.close();
});
beforeEach(() => {
  received = [];
  answers = [];
  hold = null;
});

/** Verifies a Standard Webhooks signature the way a receiver would, independently of the server's code. */
function verify(secret: string, message: Received): unknown {
  const id = message.headers["webhook-id"] as string;
  const timestamp = message.headers["webhook-timestamp"] as string;
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = createHmac("sha256", key).update(`${id}.${timestamp}.${message.body}`).digest();
  const signatures = (message.headers["webhook-signature"] as string).split(" ").map((s) => Buffer.from(s.split(",")[1]!, "base64"));
  if (!signatures.some((s) => s.length === expected.length && timingSafeEqual(s, expected))) throw new Error("bad signature");
  return JSON.parse(message.body);
}

async function settings(user: TestUser, body: object | null = null) {
  return t.app.inject({ method: body ? "PUT" : "GET", url: "/api/v1/console/alerts", headers: user.headers, ...(body ? { payload: body } : {}) });
}

async function withAlerts(balance: string, threshold: string, webhook = true) {
  const user = await createUserWithSession(t, { balance });
  const key = await t.app.inject({ method: "POST", url: "/api/v1/console/keys", headers: user.headers, payload: { name: "k" } });
  const res = await settings(user, { threshold, webhookUrl: webhook ? `${base}/hook/${user.userId}` : null });
  expect(res.statusCode).toBe(200);
  return { user, keyId: key.json().key.id as number, secret: res.json().webhookSecret as string | undefined };
}

let n = 0;
const charge = (items: { userId: number; keyId: number; amount: string }[]) =>
  chargeBatch(
    t.database.db,
    items.map((i) => ({
      userId: i.userId,
      apiKeyId: i.keyId,
      toolId: "echo",
      units: 1,
      amount: parseMoney(i.amount),
      requestId: `alert-${process.pid}-${++n}`,
      at: t.clock.now(),
      ended: { httpStatus: 200, latencyMs: 1, at: t.clock.now() },
    })),
  );

/** A call's hold, as the gateway takes it before an HTTP tool runs: pending until `settle` gives back what it did not cost. */
async function callHold(user: TestUser, keyId: number, amount: string) {
  const requestId = `alert-hold-${process.pid}-${++n}`;
  const [held] = await chargeBatch(t.database.db, [{ userId: user.userId, apiKeyId: keyId, toolId: "echo", units: 1, amount: parseMoney(amount), requestId, at: t.clock.now() }]);
  if (!held?.ok) throw new Error("the hold was refused");
  return (givenBack: string, finalStatus: "refunded" | "succeeded") =>
    refundBatch(t.database.db, [
      { usageId: held.usageId, userId: user.userId, apiKeyId: keyId, amount: parseMoney(givenBack), requestId, at: t.clock.now(), finalStatus, units: 1, httpStatus: finalStatus === "refunded" ? 502 : 200, latencyMs: 5 },
    ]);
}

const smsTo = (phone: string) => readOutbox(dataDir).filter((m) => m.to === phone);

/** What each server process's alerts job builds for itself. */
const workerDeps = () => t.app.alertsJob.workerDeps();

describe("alert settings", () => {
  it("are off by default; the first webhook URL's secret is shown once; bad input is refused with the console's error", async () => {
    const user = await createUserWithSession(t);
    expect((await settings(user)).json()).toEqual({ threshold: null, webhookUrl: null, hasWebhookSecret: false, smsPerDay: 3, deliveries: [] });
    const saved = await settings(user, { threshold: "5", webhookUrl: `${base}/hook` });
    expect(saved.json()).toMatchObject({ threshold: "5.00", webhookUrl: `${base}/hook`, hasWebhookSecret: true, webhookSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/=]{32}$/) });
    const again = await settings(user, { threshold: "6", webhookUrl: `${base}/other` });
    expect(again.json().webhookSecret).toBeUndefined();
    expect((await settings(user)).json()).not.toHaveProperty("webhookSecret");

    for (const [body, message] of [
      [{ threshold: "0", webhookUrl: null }, "threshold: threshold must be greater than 0"],
      [{ threshold: "-5", webhookUrl: null }, "threshold: threshold must be greater than 0"],
      [{ threshold: "abc", webhookUrl: null }, "threshold: threshold must be an amount such as 100 or 12.50 (at most 6 decimals)"],
      [{ threshold: "99999999999999", webhookUrl: null }, "threshold: threshold must be no more than 9223372036854.775807"],
      [{ threshold: "1", webhookUrl: "https://10.0.0.8/hook" }, "webhookUrl: webhook URL must not point at 10.0.0.8, which is not a public address"],
      [{ threshold: "1", webhookUrl: "http://hooks.example.com/x" }, "webhookUrl: webhook URL must be an https:// address"],
      [{ threshold: "1", webhookUrl: `https://hooks.example.com/${"a".repeat(2048)}` }, "webhookUrl: webhook URL is longer than 2048 characters"],
    ] as const) {
      const res = await settings(user, body);
      expect([res.statusCode, res.json()]).toEqual([400, { code: "validation_failed", message }]);
    }
    expect((await settings(user)).json()).toMatchObject({ threshold: "6.00", webhookUrl: `${base}/other` });
  });

  it("saved twice at once with a first webhook URL (a double click), shows one secret, and it is the one that signs", async () => {
    const user = await createUserWithSession(t);
    const saves = await Promise.all([1, 2, 3].map(() => settings(user, { threshold: "1", webhookUrl: `${base}/hook/${user.userId}` })));
    expect(saves.map((s) => s.statusCode)).toEqual([200, 200, 200]);
    const shown = saves.map((s) => s.json().webhookSecret as string | undefined).filter((s) => s !== undefined);
    expect(shown).toHaveLength(1);
    await t.app.inject({ method: "POST", url: "/api/v1/console/alerts/test", headers: user.headers });
    await t.app.alertsJob.runOnce();
    expect(verify(shown[0]!, received[0]!)).toMatchObject({ type: "test" });
  });

  it("rotates the secret: the new one is shown once and signs from then on", async () => {
    const { user, secret } = await withAlerts("1", "0.5");
    const rotated = await t.app.inject({ method: "POST", url: "/api/v1/console/alerts/webhook-secret", headers: user.headers });
    const fresh = rotated.json().webhookSecret as string;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(secret);
    await t.app.inject({ method: "POST", url: "/api/v1/console/alerts/test", headers: user.headers });
    await t.app.alertsJob.runOnce();
    expect(verify(fresh, received[0]!)).toMatchObject({ type: "test" });
    expect(() => verify(secret!, received[0]!)).toThrow("bad signature");
  });

  it("keeps no signing secret for replay: a retried rotation answers with a newer secret, and only that one signs", async () => {
    const { user } = await withAlerts("1", "0.5");
    const rotate = () =>
      t.app.inject({ method: "POST", url: "/api/v1/console/alerts/webhook-secret", headers: { ...user.headers, "idempotency-key": "rotate-secret-0001" } });
    const first = await rotate();
    expect(first.headers["cache-control"]).toBe("no-store");
    const replay = await rotate();
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect(replay.headers["cache-control"]).toBe("no-store");
    const [older, newer] = [first.json().webhookSecret as string, replay.json().webhookSecret as string];
    expect(newer).toMatch(/^whsec_/);
    expect(newer).not.toBe(older);
    const sealer = createSealer(t.config.sessionSecret, "idempotency");
    const stored = (await t.database.db.select().from(idempotencyKeys)).map((row) => (row.sealedResponse ? sealer.open(row.sealedResponse) : "")).join("\n");
    expect(stored).not.toContain(older);
    expect(stored).not.toContain(newer);
    await t.app.inject({ method: "POST", url: "/api/v1/console/alerts/test", headers: user.headers });
    await t.app.alertsJob.runOnce();
    expect(verify(newer, received[0]!)).toMatchObject({ type: "test" });
    expect(() => verify(older, received[0]!)).toThrow("bad signature");
  });
});

describe("a charge that takes the balance below the threshold", () => {
  it("sends one SMS and one signed webhook; further charges below send nothing; rising above re-arms it", async () => {
    const { user, keyId, secret } = await withAlerts("1.50", "1");
    await charge([{ userId: user.userId, keyId, amount: "0.40" }]);
    await t.app.alertsJob.runOnce();
    expect(received).toHaveLength(0);

    // 1.10 → 0.90 crosses; 0.90 → 0.70 in the same batch does not cross again.
    await charge([{ userId: user.userId, keyId, amount: "0.20" }, { userId: user.userId, keyId, amount: "0.20" }]);
    const delivered = ['tollgate_alert_deliveries_total{channel="sms",result="delivered"}', 'tollgate_alert_deliveries_total{channel="webhook",result="delivered"}'];
    expect(await metricsGrowth(t.app, delivered, () => t.app.alertsJob.runOnce())).toEqual({ [delivered[0]!]: 1, [delivered[1]!]: 1 });
    expect(smsTo(user.phone).map((m) => m.text)).toEqual([
      "[Tollgate] Your balance is 0.90, below your alert threshold of 1.00. Top up to keep your API calls running.",
    ]);
    expect(received).toHaveLength(1);
    expect(received[0]!.path).toBe(`/hook/${user.userId}`);
    expect(verify(secret!, received[0]!)).toEqual({ type: "balance.low", timestamp: t.clock.now().toISOString(), data: { balance: "0.90", threshold: "1.00" } });

    await charge([{ userId: user.userId, keyId, amount: "0.30" }]);
    await t.app.alertsJob.runOnce();
    await t.app.alertsJob.runOnce();
    expect(received).toHaveLength(1);
    expect(smsTo(user.phone)).toHaveLength(1);

    await credit(t.database.db, { userId: user.userId, amount: parseMoney("1"), kind: "adjustment", method: "operator", reference: "top up", idempotencyKey: `topup-${user.userId}`, at: t.clock.now() });
    await charge([{ userId: user.userId, keyId, amount: "0.50" }]);
    await t.app.alertsJob.runOnce();
    expect(received).toHaveLength(2);
    expect(smsTo(user.phone)).toHaveLength(2);
    const deliveries = (await settings(user)).json().deliveries;
    expect(deliveries.map((d: { channel: string; status: string }) => [d.channel, d.status]).sort()).toEqual([
      ["sms", "delivered"],
      ["sms", "delivered"],
      ["webhook", "delivered"],
      ["webhook", "delivered"],
    ]);
  });

  it("judges a call's hold as it settles: a failed call's, given back, sends nothing; one settled lower counts what it cost; one still pending counts after 30 s", async () => {
    const { user, keyId } = await withAlerts("1.50", "1");
    // A hold of 0.80 (1.50 → 0.70) for a call that fails: pending while the job runs, then all given back.
    const failed = await callHold(user, keyId, "0.80");
    await t.app.alertsJob.runOnce();
    await failed("0.80", "refunded");
    await t.app.alertsJob.runOnce();
    // A per-unit call holding 0.80 that cost 0.30: 1.50 → 1.20, above the line.
    await (await callHold(user, keyId, "0.80"))("0.50", "succeeded");
    await t.app.alertsJob.runOnce();
    expect([received, smsTo(user.phone)]).toEqual([[], []]);

    // A long call's hold (1.20 → 0.40) still pending after 30 s is judged as it stands.
    await callHold(user, keyId, "0.80");
    await t.app.alertsJob.runOnce();
    expect(received).toHaveLength(0);
    t.clock.advance(31_000);
    await t.app.alertsJob.runOnce();
    expect(smsTo(user.phone).map((m) => m.text)).toEqual(["[Tollgate] Your balance is 0.40, below your alert threshold of 1.00. Top up to keep your API calls running."]);
    expect(received).toHaveLength(1);
  });

  it("judges a charge made while an earlier call's hold was pending by what that hold then gave back", async () => {
    const { user, keyId } = await withAlerts("12", "10");
    // A hold of 5.00 (12.00 → 7.00) for a call that costs 0.50, and a charge of 2.00 (7.00 → 5.00) while it runs.
    const settle = await callHold(user, keyId, "5");
    await charge([{ userId: user.userId, keyId, amount: "2" }]);
    await t.app.alertsJob.runOnce();
    await settle("4.50", "succeeded");
    await t.app.alertsJob.runOnce();
    // 12.00 − 0.50 = 11.50 before the charge, 9.50 after: the charge crossed the line.
    expect(smsTo(user.phone).map((m) => m.text)).toEqual(["[Tollgate] Your balance is 9.50, below your alert threshold of 10.00. Top up to keep your API calls running."]);
    expect(received).toHaveLength(1);

    // The same with a call that failed: all 5.00 given back leaves 10.00, on the line, not below it.
    const other = await withAlerts("12", "10");
    const failed = await callHold(other.user, other.keyId, "5");
    await charge([{ userId: other.user.userId, keyId: other.keyId, amount: "2" }]);
    await t.app.alertsJob.runOnce();
    await failed("5", "refunded");
    await t.app.alertsJob.runOnce();
    expect(smsTo(other.user.phone)).toEqual([]);
    expect(received).toHaveLength(1);

    // Two calls running, a charge between them, their holds given back in either order: the balance
    // goes 20.00 → 19.00 → 18.50 → 16.50 → 15.50 by what each cost, never below 10.00. Judged by the
    // ledger alone, the charge of 2.00 (11.00 → 9.00) read as a crossing.
    const third = await withAlerts("20", "10");
    const first = await callHold(third.user, third.keyId, "6");
    const second = await callHold(third.user, third.keyId, "3");
    await charge([{ userId: third.user.userId, keyId: third.keyId, amount: "2" }]);
    await first("5", "succeeded");
    await charge([{ userId: third.user.userId, keyId: third.keyId, amount: "1" }]);
    await t.app.alertsJob.runOnce();
    await second("2.50", "succeeded");
    await t.app.alertsJob.runOnce();
    t.clock.advance(31_000);
    await t.app.alertsJob.runOnce();
    expect(smsTo(third.user.phone)).toEqual([]);
    expect(received).toHaveLength(1);
  });

  it("alerts the user whose charge crossed, not one whose call settled after its charge left the scan's window", async () => {
    // A call of 5.00 (20.00 → 15.00) still running when the scans have moved past its charge.
    const { user: settling, keyId: settlingKey } = await withAlerts("20", "10");
    const settleLate = await callHold(settling, settlingKey, "5");
    await t.app.alertsJob.runOnce();
    t.clock.advance(90_000);
    await t.app.alertsJob.runOnce();

    // Beside it, a charge of 2.00 made while a hold of 5.00 ran (12.00 → 7.00 → 5.00); the late
    // call's refund is written between that charge and its hold's.
    const { user, keyId } = await withAlerts("12", "10");
    const settle = await callHold(user, keyId, "5");
    await charge([{ userId: user.userId, keyId, amount: "2" }]);
    await settleLate("5", "refunded");
    await settle("4.50", "succeeded");
    await t.app.alertsJob.runOnce();
    // 11.50 before the charge, 9.50 after; the late call's user is back at 20.00 and hears nothing.
    expect(smsTo(user.phone).map((m) => m.text)).toEqual(["[Tollgate] Your balance is 9.50, below your alert threshold of 10.00. Top up to keep your API calls running."]);
    expect(received.map((r) => r.path)).toEqual([`/hook/${user.userId}`]);
    expect(smsTo(settling.phone)).toEqual([]);
    expect((await settings(settling)).json().deliveries).toEqual([]);
  });

  it("alerts a charge that commits after later entries of the ledger were scanned", async () => {
    // Scans 2 minutes apart, so the scan reads the ledger from its recent entries on.
    await t.app.alertsJob.runOnce();
    t.clock.advance(130_000);
    await t.app.alertsJob.runOnce();

    // A charge (1.50 → 0.50) whose transaction takes its ledger id, then commits only after another
    // user's charge, written after it, has committed and been scanned. PGlite has one session, so
    // the id taken is handed to the charge as it writes by setting the ledger's sequence back.
    const late = await withAlerts("1.50", "1");
    const other = await withAlerts("1.50", "1");
    const [taken] = await queryRows<{ id: string }>(t.database.db, sql`select nextval('ledger_entries_id_seq')::text as id`);
    const stamped = t.clock.now();
    await charge([{ userId: other.user.userId, keyId: other.keyId, amount: "1" }]);
    await t.app.alertsJob.runOnce();
    expect(received.map((r) => r.path)).toEqual([`/hook/${other.user.userId}`]);

    t.clock.advance(5_000);
    const requestId = `alert-late-${process.pid}`;
    await t.database.db.execute(sql`select setval('ledger_entries_id_seq', ${taken!.id}::bigint, false)`);
    await chargeBatch(t.database.db, [{ userId: late.user.userId, apiKeyId: late.keyId, toolId: "echo", units: 1, amount: parseMoney("1"), requestId, at: stamped, ended: { httpStatus: 200, latencyMs: 1, at: stamped } }]);
    await t.database.db.execute(sql`select setval('ledger_entries_id_seq', (select max(id) from ledger_entries))`);
    const written = await queryRows<{ id: string; later: boolean }>(
      t.database.db,
      sql`select id::text as id, id < (select max(id) from ledger_entries where user_id = ${other.user.userId}) as later from ledger_entries where idempotency_key = ${`usage:${requestId}`}`,
    );
    expect(written).toEqual([{ id: taken!.id, later: true }]);

    await t.app.alertsJob.runOnce();
    expect(smsTo(late.user.phone).map((m) => m.text)).toEqual(["[Tollgate] Your balance is 0.50, below your alert threshold of 1.00. Top up to keep your API calls running."]);
    expect(received.map((r) => r.path)).toEqual([`/hook/${other.user.userId}`, `/hook/${late.user.userId}`]);
  });

  it("a batch that crosses the line for 100 users sends exactly 100 SMS and 100 webhooks", async () => {
    const users = await Promise.all(Array.from({ length: 100 }, () => withAlerts("2", "1")));
    await charge(users.map(({ user, keyId }) => ({ userId: user.userId, keyId, amount: "1.50" })));
    await Promise.all([t.app.alertsJob.runOnce(), t.app.alertsJob.runOnce()]);
    await t.app.alertsJob.runOnce();
    const phones = new Set(users.map(({ user }) => user.phone));
    expect(readOutbox(dataDir).filter((m) => phones.has(m.to))).toHaveLength(100);
    expect(received).toHaveLength(100);
    expect(new Set(received.map((r) => r.path)).size).toBe(100);
  }, 180_000);

  it("sends at most the day's SMS cap to one user; the webhook still goes every time", async () => {
    const { user, keyId } = await withAlerts("5.50", "5");
    for (let i = 0; i < 4; i++) {
      await charge([{ userId: user.userId, keyId, amount: "1" }]);
      await credit(t.database.db, { userId: user.userId, amount: parseMoney("1"), kind: "adjustment", method: "operator", reference: "again", idempotencyKey: `again-${user.userId}-${i}`, at: t.clock.now() });
    }
    await t.app.alertsJob.runOnce();
    const sms = (await settings(user)).json().deliveries.filter((d: { channel: string }) => d.channel === "sms");
    expect(sms.map((d: { status: string }) => d.status).sort()).toEqual(["delivered", "delivered", "delivered", "skipped"]);
    expect(sms.find((d: { status: string }) => d.status === "skipped").lastError).toBe("the day's alert SMS limit was reached");
    expect(smsTo(user.phone)).toHaveLength(3);
    expect(received).toHaveLength(4);
  });
});

describe("the day's SMS cap with several workers", () => {
  it("holds when five workers each send one of a user's SMS at the same instant", async () => {
    const { user, keyId } = await withAlerts("5.50", "5", false);
    for (let i = 0; i < 5; i++) {
      await charge([{ userId: user.userId, keyId, amount: "1" }]);
      await credit(t.database.db, { userId: user.userId, amount: parseMoney("1"), kind: "adjustment", method: "operator", reference: "again", idempotencyKey: `race-${user.userId}-${i}`, at: t.clock.now() });
    }
    await findCrossings(t.database.db, t.clock.now());
    const handled = await Promise.all(Array.from({ length: 5 }, () => deliverDue(workerDeps(), () => t.clock.now(), 1)));
    expect(handled.reduce((sum, n) => sum + n, 0)).toBe(5);
    expect(smsTo(user.phone)).toHaveLength(t.config.alerts.smsPerUserPerDay);
    const sms = (await settings(user)).json().deliveries.filter((d: { channel: string }) => d.channel === "sms");
    expect(sms.filter((d: { status: string }) => d.status === "delivered")).toHaveLength(t.config.alerts.smsPerUserPerDay);
    expect(sms.filter((d: { status: string }) => d.status === "skipped")).toHaveLength(5 - t.config.alerts.smsPerUserPerDay);
  });
});

describe("a webhook that fails", () => {
  it("is retried with back-off, and the user sees each attempt", async () => {
    const { user, keyId } = await withAlerts("1", "0.8");
    answers = [500, 503];
    await charge([{ userId: user.userId, keyId, amount: "0.5" }]);
    await t.app.alertsJob.runOnce();
    let [hook] = (await settings(user)).json().deliveries.filter((d: { channel: string }) => d.channel === "webhook");
    expect(hook).toMatchObject({ status: "pending", lastError: "the receiver answered 500", attempts: [{ httpStatus: 500 }] });
    expect(Date.parse(hook.nextAttemptAt) - t.clock.now().getTime()).toBe(10_000);

    await t.app.alertsJob.runOnce();
    expect(received).toHaveLength(1);
    t.clock.advance(10_000);
    await t.app.alertsJob.runOnce();
    t.clock.advance(60_000);
    await t.app.alertsJob.runOnce();
    [hook] = (await settings(user)).json().deliveries.filter((d: { channel: string }) => d.channel === "webhook");
    expect(hook).toMatchObject({ status: "delivered", nextAttemptAt: null });
    expect(hook.attempts.map((a: { httpStatus: number }) => a.httpStatus)).toEqual([500, 503, 204]);
    expect(new Set(received.map((r) => r.headers["webhook-id"])).size).toBe(1);
  });
});

describe("the test event", () => {
  it("needs a webhook URL, then is delivered and shown", async () => {
    const bare = await createUserWithSession(t);
    const refused = await t.app.inject({ method: "POST", url: "/api/v1/console/alerts/test", headers: bare.headers });
    expect([refused.statusCode, refused.json()]).toEqual([400, { code: "validation_failed", message: "set a webhook URL first" }]);

    const { user, secret } = await withAlerts("1", "0.5");
    const res = await t.app.inject({ method: "POST", url: "/api/v1/console/alerts/test", headers: user.headers });
    expect(res.statusCode).toBe(202);
    await t.app.alertsJob.runOnce();
    expect(verify(secret!, received[0]!)).toMatchObject({ type: "test", data: { message: "a test event from the console" } });
    expect((await settings(user)).json().deliveries).toMatchObject([{ eventType: "test", channel: "webhook", status: "delivered", attempts: [{ httpStatus: 204 }] }]);
  });

  const sendTest = (user: TestUser) => t.app.inject({ method: "POST", url: "/api/v1/console/alerts/test", headers: user.headers });

  it("is sent once: a receiver that fails gets one attempt, not the retries of an alert", async () => {
    const { user } = await withAlerts("1", "0.5");
    answers = [500, 500];
    expect((await sendTest(user)).statusCode).toBe(202);
    await t.app.alertsJob.runOnce();
    for (const wait of [10_000, 60_000, 300_000]) {
      t.clock.advance(wait);
      await t.app.alertsJob.runOnce();
    }
    expect(received).toHaveLength(1);
    expect((await settings(user)).json().deliveries).toMatchObject([
      { eventType: "test", status: "failed", nextAttemptAt: null, lastError: "the receiver answered 500", attempts: [{ httpStatus: 500 }] },
    ]);
  });

  it("to a name that does not resolve says only that it does not resolve to a public address; the operator's log says why", async () => {
    const user = await createUserWithSession(t, { balance: "1" });
    expect((await settings(user, { threshold: "0.5", webhookUrl: "https://tollgate-probe.invalid/hook?token=private-token" })).statusCode).toBe(200);
    expect((await sendTest(user)).statusCode).toBe(202);
    await t.app.alertsJob.runOnce();
    const [delivery] = (await settings(user)).json().deliveries;
    // The same words as a name that resolves to a refused address (address-guard.test.ts), so a user cannot tell which internal names exist.
    expect(delivery).toMatchObject({ eventType: "test", status: "failed", lastError: "tollgate-probe.invalid does not resolve to a public address" });
    const logged = t.logs().split("\n").filter((line) => line.includes("webhook not delivered") && line.includes(`"userId":${user.userId}`));
    expect(logged).toHaveLength(1);
    expect(JSON.parse(logged[0]!)).toMatchObject({ host: "tollgate-probe.invalid", detail: expect.stringMatching(/getaddrinfo (ENOTFOUND|EAI_AGAIN) tollgate-probe\.invalid/) });
    expect(logged[0]).not.toContain("private-token");
  });

  it("goes one at a time: another is refused while one is on its way, and accepted once it has been delivered", async () => {
    const { user } = await withAlerts("1", "0.5");
    let answer = () => undefined as void;
    let arrived = () => undefined as void;
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    hold = { until: new Promise<void>((resolve) => (answer = resolve)), arrived };
    try {
      expect((await sendTest(user)).statusCode).toBe(202);
      await arrival;
      for (let i = 0; i < 10; i++) {
        const refused = await sendTest(user);
        expect([refused.statusCode, refused.json()]).toEqual([429, { code: "rate_limited", message: "a test event is already on its way; send another once it has been delivered" }]);
        expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
      }
    } finally {
      answer();
      hold = null;
    }
    await t.app.alertsJob.runOnce();
    // The refusals used none of the hour's 10.
    for (let i = 1; i < 10; i++) {
      expect((await sendTest(user)).statusCode).toBe(202);
      await t.app.alertsJob.runOnce();
    }
    expect(received).toHaveLength(10);
    expect((await sendTest(user)).json().message).toBe("at most 10 test events an hour; try again in 60 minutes");
  });

  it("is limited to 10 an hour per user, and a refused request counts for nothing", async () => {
    const user = await createUserWithSession(t, { balance: "1" });
    for (let i = 0; i < 10; i++) expect((await sendTest(user)).statusCode).toBe(400);
    expect((await settings(user, { threshold: "0.5", webhookUrl: `${base}/hook/${user.userId}` })).statusCode).toBe(200);
    for (let i = 0; i < 10; i++) {
      expect((await sendTest(user)).statusCode).toBe(202);
      await t.app.alertsJob.runOnce();
    }
    const refused = await sendTest(user);
    expect([refused.statusCode, refused.json().message]).toEqual([429, "at most 10 test events an hour; try again in 60 minutes"]);
    expect(received).toHaveLength(10);
    t.clock.advance(3600_000);
    expect((await sendTest(user)).statusCode).toBe(202);
    await t.app.alertsJob.runOnce();
    expect(received).toHaveLength(11);
  });

  it("waits behind the alerts of charges: a user's low balance is sent before older test events", async () => {
    const testers = await Promise.all(Array.from({ length: 3 }, () => withAlerts("1", "0.5")));
    // Queued as the console's button queues them, without its nudge to the job.
    for (const { user } of testers) await queueTestEvent(t.database.db, { userId: user.userId, now: t.clock.now(), takeAllowance: async () => {} });
    t.clock.advance(1000);
    const { user, keyId } = await withAlerts("1", "0.8");
    await charge([{ userId: user.userId, keyId, amount: "0.5" }]);
    await findCrossings(t.database.db, t.clock.now());
    expect(await deliverDue(workerDeps(), () => t.clock.now(), 2)).toBe(2);
    expect((await settings(user)).json().deliveries.map((d: { status: string }) => d.status)).toEqual(["delivered", "delivered"]);
    expect(received.map((r) => r.path)).toEqual([`/hook/${user.userId}`]);
    for (const { user: tester } of testers) expect((await settings(tester)).json().deliveries).toMatchObject([{ eventType: "test", status: "pending" }]);
    await t.app.alertsJob.runOnce();
  });

  it("does not hold back alerts: a charge made while the job waits on a slow receiver is alerted by that same run", async () => {
    const tester = await withAlerts("1", "0.5");
    const { user, keyId } = await withAlerts("1", "0.8");
    let answer = () => undefined as void;
    let arrived = () => undefined as void;
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    hold = { until: new Promise<void>((resolve) => (answer = resolve)), arrived };
    expect((await sendTest(tester.user)).statusCode).toBe(202);
    await arrival;
    hold = null;
    await charge([{ userId: user.userId, keyId, amount: "0.5" }]);
    answer();
    for (let tries = 0; tries < 200 && !received.some((r) => r.path === `/hook/${user.userId}`); tries++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(received.map((r) => r.path)).toEqual([`/hook/${tester.user.userId}`, `/hook/${user.userId}`]);
  });
});

describe("finished deliveries", () => {
  it("are kept 90 days with their attempts, then deleted; a pending one stays", async () => {
    const { user, keyId } = await withAlerts("1", "0.8");
    answers = [500];
    await charge([{ userId: user.userId, keyId, amount: "0.5" }]);
    await t.app.alertsJob.runOnce();
    t.clock.advance(10_000);
    await t.app.alertsJob.runOnce();
    const waiting = await withAlerts("1", "0.5");
    await queueTestEvent(t.database.db, { userId: waiting.user.userId, now: t.clock.now(), takeAllowance: async () => {} });

    // Read from the database: the users' sessions have ended by then.
    const kept = async (userId: number) => {
      const deliveries = await t.database.db.select().from(alertDeliveries).where(eq(alertDeliveries.userId, userId));
      const attempts = await t.database.db.select().from(alertAttempts).where(inArray(alertAttempts.deliveryId, [0, ...deliveries.map((d) => d.id)]));
      return { deliveries: deliveries.map((d) => `${d.channel} ${d.status}`).sort(), attempts: attempts.length };
    };
    const purge = () => purgeFinishedDeliveries(t.database.db, new Date(t.clock.now().getTime() - FINISHED_DELIVERY_RETENTION_MS));
    t.clock.advance(FINISHED_DELIVERY_RETENTION_MS - 20_000);
    await purge();
    expect(await kept(user.userId)).toEqual({ deliveries: ["sms delivered", "webhook delivered"], attempts: 2 });
    t.clock.advance(20_000);
    expect(await purge()).toBeGreaterThanOrEqual(2);
    expect(await kept(user.userId)).toEqual({ deliveries: [], attempts: 0 });
    expect(await kept(waiting.user.userId)).toEqual({ deliveries: ["webhook pending"], attempts: 0 });
    await t.app.alertsJob.runOnce();
  });
});
