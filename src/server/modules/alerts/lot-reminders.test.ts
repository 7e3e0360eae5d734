import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alertDeliveries } from "../../db/schema/index";
import { readOutbox } from "../../testing/sms-outbox";
import { insertApiKey } from "../../testing/keys";
import { tempDataDir } from "../../testing/temp-dir";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { createUserWithSession, type TestUser } from "../../testing/users";
import { buyPackage, chargeBatch, grantPackage } from "../ledger/index";
import { findExpiringLots } from "./lot-expiry";
import { deliverDue } from "./outbox";

let t: TestApp;
let dataDir: string;

beforeAll(async () => {
  dataDir = tempDataDir();
  t = await createTestApp({ DATA_DIR: dataDir, ALERT_JOB_SECONDS: "3600" });
});
afterAll(() => t.close());

const DAY = 24 * 3600_000;
const terms = (name: string, units: number, validDays: number) => ({ toolId: "qrcode", packageId: name.toLowerCase(), name, units, price: 1_000_000n, validDays });
const smsTo = (user: TestUser) => readOutbox(dataDir).filter((m) => m.to === user.phone).map((m) => m.text);

async function grant(user: TestUser, name: string, units: number, validDays: number) {
  const { lots } = await grantPackage(t.database.db, { userId: user.userId, terms: terms(name, units, validDays), count: 1, at: t.clock.now(), idempotencyKey: `${name}-${user.userId}` });
  return lots[0]!;
}

/** Draws `units` of QR code from the user's lots, as a call of a tool with packages does. */
async function draw(user: TestUser, units: number) {
  const at = t.clock.now();
  const [outcome] = await chargeBatch(t.database.db, [
    {
      userId: user.userId,
      apiKeyId: await insertApiKey(t.database.db, user.userId, at),
      toolId: "qrcode",
      units,
      amount: 2000n * BigInt(units),
      requestId: `draw-${user.userId}-${at.getTime()}`,
      at,
      ended: { httpStatus: 200, latencyMs: 1, at },
      prepaid: { price: 2000n, freeUnits: 0, freeFrom: at, freeUntil: at, stopWhenOut: true },
    },
  ]);
  expect(outcome).toMatchObject({ ok: true, prepaidUnits: units });
}

describe("reminders that a package with units left expires", () => {
  it("one SMS 7 days before and one 1 day before, once each across runs and workers; none for an empty lot; a lot made inside 7 days gets only the 1-day one", async () => {
    t.clock.set("2026-03-01T06:00:00.000Z"); // 14:00 in Beijing
    const user = await createUserWithSession(t, { balance: "5" });
    const bought = await buyPackage(t.database.db, { userId: user.userId, terms: terms("Starter", 5, 30), at: t.clock.now(), idempotencyKey: `starter-${user.userId}` });
    expect(bought.ok).toBe(true);
    await grant(user, "Single", 1, 29);
    await draw(user, 1); // from Single, the soonest expiring: empty, so never reminded
    const short = await grant(user, "Short", 2, 3); // inside 7 days from the start: no 7-day reminder
    await t.app.alertsJob.runOnce();
    expect(smsTo(user)).toEqual([]);

    const expires = Date.parse("2026-03-31T06:00:00.000Z");
    t.clock.set(new Date(short.expiresAt.getTime() - DAY)); // Short: its 1-day mark
    await t.app.alertsJob.runOnce();
    expect(smsTo(user)).toEqual([`[${t.config.siteName}] Short for QR code has 2 calls left and expires at 2026-03-04 14:00:00 +08:00. Units left then are not refunded.`]);

    t.clock.set(new Date(expires - 7 * DAY - 1)); // a millisecond before the 7-day mark
    await t.app.alertsJob.runOnce();
    expect(smsTo(user)).toHaveLength(1);
    t.clock.set(new Date(expires - 7 * DAY));
    await t.app.alertsJob.runOnce();
    await t.app.alertsJob.runOnce();
    // Another worker scanning and sending at the same instant writes and sends nothing more.
    expect(await findExpiringLots(t.database.db, t.clock.now())).toBe(0);
    expect(await deliverDue(t.app.alertsJob.workerDeps(), () => t.clock.now())).toBe(0);
    expect(smsTo(user).slice(1)).toEqual([`[${t.config.siteName}] Starter for QR code has 5 calls left and expires at 2026-03-31 14:00:00 +08:00. Units left then are not refunded.`]);

    t.clock.set(new Date(expires - DAY - 1));
    await t.app.alertsJob.runOnce();
    expect(smsTo(user)).toHaveLength(2);
    t.clock.set(new Date(expires - DAY));
    await t.app.alertsJob.runOnce();
    await t.app.alertsJob.runOnce();
    expect(smsTo(user).slice(2)).toEqual([`[${t.config.siteName}] Starter for QR code has 5 calls left and expires at 2026-03-31 14:00:00 +08:00. Units left then are not refunded.`]);

    const reminders = await t.database.db.select().from(alertDeliveries).where(eq(alertDeliveries.userId, user.userId)).orderBy(alertDeliveries.id);
    expect(reminders.map((d) => [d.eventType, d.eventId, d.status])).toEqual([
      ["lot.expiring", `evt_lot_${short.id}_1d`, "delivered"],
      ["lot.expiring", `evt_lot_${bought.ok && bought.lot.id}_7d`, "delivered"],
      ["lot.expiring", `evt_lot_${bought.ok && bought.lot.id}_1d`, "delivered"],
    ]);
  });

  it("a lot emptied after its reminder was written sends nothing", async () => {
    t.clock.set("2026-05-01T06:00:00.000Z");
    const user = await createUserWithSession(t);
    const lot = await grant(user, "Gone", 1, 10);
    t.clock.set(new Date(lot.expiresAt.getTime() - 7 * DAY));
    expect(await findExpiringLots(t.database.db, t.clock.now())).toBe(1);
    await draw(user, 1);
    await t.app.alertsJob.runOnce();
    expect(smsTo(user)).toEqual([]);
    const [delivery] = await t.database.db.select().from(alertDeliveries).where(eq(alertDeliveries.userId, user.userId));
    expect([delivery!.status, delivery!.lastError]).toEqual(["skipped", "the lot has no units left"]);
  });

  it("keeps within the day's alert SMS cap: four lots reaching their 7-day mark the same day send three", async () => {
    t.clock.set("2026-07-01T06:00:00.000Z");
    const user = await createUserWithSession(t);
    for (const name of ["A", "B", "C", "D"]) await grant(user, name, 3, 20);
    t.clock.set(new Date(t.clock.now().getTime() + 13 * DAY));
    await t.app.alertsJob.runOnce();
    expect(smsTo(user)).toHaveLength(t.config.alerts.smsPerUserPerDay);
    const deliveries = await t.database.db.select().from(alertDeliveries).where(eq(alertDeliveries.userId, user.userId));
    expect(deliveries.map((d) => d.status).sort()).toEqual(["delivered", "delivered", "delivered", "skipped"]);
  });
});
