import fs from "node:fs";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatMoney, parseMoney } from "#shared/money";
import { SPEND_LIMIT_PERIODS, spendPeriodEnd, spendPeriodStart } from "#shared/spend-period";
import { queryRows } from "../../db/client";
import { apiKeys, users } from "../../db/schema/index";
import { createSession } from "../auth/sessions";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { createUserWithSession, type TestUser } from "../../testing/users";
import { verifyLedger } from "../ledger/verify";
import { arrayLiteral } from "../../db/array-literal";
import { chargeBatch, type ChargeItem } from "../ledger/charges";
import { refundBatch } from "../ledger/refunds";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

// Beijing is UTC+8: 2026-03-01T16:00:00Z is midnight of 2 March there.
const BEIJING_MIDNIGHT = "2026-03-01T16:00:00Z";

async function newKey(user: TestUser, body: object) {
  const res = await t.app.inject({ method: "POST", url: "/api/v1/console/keys", headers: user.headers, payload: { name: "limited", ...body } });
  expect(res.statusCode).toBe(201);
  return { id: res.json().key.id as number, secret: res.json().secret as string };
}

async function keyView(user: TestUser, id: number) {
  const res = await t.app.inject({ url: "/api/v1/console/keys", headers: user.headers });
  return res.json().keys.find((k: { id: number }) => k.id === id);
}

const echo = (secret: string) =>
  t.app.inject({ method: "POST", url: "/v1/tools/echo", payload: { n: 1 }, headers: { authorization: `Bearer ${secret}` } });

let requestNo = 0;
const item = (userId: number, apiKeyId: number, amount: string, at = t.clock.now()): ChargeItem => ({
  userId,
  apiKeyId,
  toolId: "echo",
  units: 1,
  amount: parseMoney(amount),
  requestId: `period-${process.pid}-${++requestNo}`,
  at,
  ended: { httpStatus: 200, latencyMs: 1, at },
});

async function balanceOf(userId: number) {
  const [row] = await t.database.db.select({ balance: users.balance }).from(users).where(eq(users.id, userId));
  return formatMoney(row!.balance);
}

/**
 * Instants to hold the two definitions of a spend period to: every instant the server's tests and
 * the browser specs write (their clocks), every Beijing midnight of 2026 and 2027, and each of
 * these a millisecond before and after.
 */
function boundaryInstants(): Date[] {
  const root = path.resolve(import.meta.dirname, "../../../..");
  const sources = [
    ...fs.readdirSync(path.join(root, "src/server"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".test.ts")).map((f) => path.join(root, "src/server", f)),
    ...fs.readdirSync(path.join(root, "tests/e2e")).filter((f) => f.endsWith(".ts")).map((f) => path.join(root, "tests/e2e", f)),
  ];
  const written = sources.flatMap((file) => [...fs.readFileSync(file, "utf8").matchAll(/"(\d{4}-\d{2}-\d{2}T[\d:.]+Z)"/g)].map((m) => Date.parse(m[1]!)));
  const midnights = Array.from({ length: 731 }, (_, day) => Date.parse("2025-12-31T16:00:00Z") + day * 86_400_000);
  // This century's only: the billing tests also write years 1 and 1900, the limits of a query range.
  const century = (ms: number) => ms >= Date.parse("2000-01-01T00:00:00Z") && ms < Date.parse("2100-01-01T00:00:00Z");
  const instants = new Set([...written, ...midnights].filter(century).flatMap((ms) => [ms - 1, ms, ms + 1]));
  return [...instants].sort((x, y) => x - y).map((ms) => new Date(ms));
}

describe("period boundaries", () => {
  it("are the same in the database and in the console's code: Beijing midnight, and the first of the month", async () => {
    const instants = boundaryInstants();
    expect(instants.length).toBeGreaterThan(2000);
    const ms = (column: string) => sql.raw(`(extract(epoch from ${column}) * 1000)::bigint::text`);
    for (const period of SPEND_LIMIT_PERIODS) {
      const rows = await queryRows<{ start: string | null; next: string | null; last: string | null }>(
        t.database.db,
        sql`select ${ms(`spend_period_start('${period}'::spend_limit_period, at)`)} as start,
                   ${ms(`spend_period_start('${period}'::spend_limit_period, e)`)} as next,
                   ${ms(`spend_period_start('${period}'::spend_limit_period, e - interval '1 millisecond')`)} as last
              from unnest(${arrayLiteral(instants.map((d) => d.toISOString()))}::timestamptz[],
                          ${arrayLiteral(instants.map((d) => spendPeriodEnd(period, d)?.toISOString() ?? null))}::timestamptz[]) with ordinality as i(at, e, n)
             order by n`,
      );
      const differences = instants.flatMap((at, i) => {
        const start = spendPeriodStart(period, at)?.getTime().toString() ?? null;
        const end = spendPeriodEnd(period, at)?.getTime().toString() ?? null;
        // The period's end is where the database starts the next period, and its last millisecond is still this one.
        const expected = { start, next: end, last: start && end ? start : null };
        return JSON.stringify(rows[i]) === JSON.stringify(expected) ? [] : [{ period, at: at.toISOString(), database: rows[i], console: expected }];
      });
      expect(differences).toEqual([]);
    }
    expect(spendPeriodStart("day", new Date("2026-01-31T15:59:59.999Z"))!.toISOString()).toBe("2026-01-30T16:00:00.000Z");
    expect(spendPeriodStart("month", new Date("2026-01-31T16:00:00Z"))!.toISOString()).toBe("2026-01-31T16:00:00.000Z");
    expect(spendPeriodEnd("month", new Date("2026-12-31T16:00:00.001Z"))!.toISOString()).toBe("2027-01-31T16:00:00.000Z");
  });
});

describe("a daily spend limit", () => {
  it("refuses calls once the day's spend reaches it, starts again at Beijing midnight, and the keys list shows the day's spend", async () => {
    t.clock.set("2026-03-01T15:00:00Z");
    const user = await createUserWithSession(t, { balance: "1" });
    const key = await newKey(user, { spendLimit: "0.0003", spendLimitPeriod: "day" });
    for (let i = 0; i < 3; i++) expect((await echo(key.secret)).statusCode).toBe(200);
    const refused = await echo(key.secret);
    expect(refused.statusCode).toBe(402);
    expect(refused.json().error.code).toBe("spend_limit_reached");
    expect(await keyView(user, key.id)).toMatchObject({
      spendLimit: "0.0003",
      spendLimitPeriod: "day",
      periodSpent: "0.0003",
      spent: "0.0003",
      periodEndsAt: new Date(BEIJING_MIDNIGHT).toISOString(),
    });

    t.clock.set(BEIJING_MIDNIGHT);
    expect(await keyView(user, key.id)).toMatchObject({ periodSpent: "0.00", spent: "0.0003" });
    for (let i = 0; i < 3; i++) expect((await echo(key.secret)).statusCode).toBe(200);
    expect((await echo(key.secret)).statusCode).toBe(402);
    expect(await keyView(user, key.id)).toMatchObject({ periodSpent: "0.0003", spent: "0.0006", periodEndsAt: "2026-03-02T16:00:00.000Z" });
    expect(await balanceOf(user.userId)).toBe("0.9994");
  });

  it("a monthly limit holds across days and resets on the first of the month", async () => {
    t.clock.set("2026-03-10T01:00:00Z");
    const user = await createUserWithSession(t, { balance: "1" });
    const key = await newKey(user, { spendLimit: "0.05", spendLimitPeriod: "month" });
    expect(await chargeBatch(t.database.db, [item(user.userId, key.id, "0.03"), item(user.userId, key.id, "0.01")])).toMatchObject([
      { ok: true },
      { ok: true },
    ]);
    t.clock.set("2026-03-31T15:59:00Z");
    expect(await chargeBatch(t.database.db, [item(user.userId, key.id, "0.02"), item(user.userId, key.id, "0.01")])).toEqual([
      { ok: false, reason: "spend_limit_reached" },
      { ok: true, usageId: expect.any(Number), balance: parseMoney("0.95") },
    ]);
    t.clock.set("2026-03-31T16:00:00Z");
    expect(await chargeBatch(t.database.db, [item(user.userId, key.id, "0.05")])).toMatchObject([{ ok: true }]);
    const { token } = await createSession(t.database.db, { userId: user.userId, now: t.clock.now() });
    expect(await keyView({ ...user, headers: { authorization: `Bearer ${token}` } }, key.id)).toMatchObject({ periodSpent: "0.05", spent: "0.10", periodEndsAt: "2026-04-30T16:00:00.000Z" });
  });

  it("counts what the key already spent today when its limit becomes daily, and a lifetime limit counts everything again", async () => {
    t.clock.set("2026-03-05T02:00:00Z");
    const user = await createUserWithSession(t, { balance: "1" });
    const key = await newKey(user, { spendLimit: "1" });
    await chargeBatch(t.database.db, [item(user.userId, key.id, "0.04")]);
    t.clock.set("2026-03-05T17:00:00Z"); // the next Beijing day
    await chargeBatch(t.database.db, [item(user.userId, key.id, "0.02")]);
    const daily = await t.app.inject({
      method: "PATCH",
      url: `/api/v1/console/keys/${key.id}`,
      headers: user.headers,
      payload: { spendLimit: "0.03", spendLimitPeriod: "day" },
    });
    expect(daily.json()).toMatchObject({ spendLimitPeriod: "day", periodSpent: "0.02", spent: "0.06" });
    expect(await chargeBatch(t.database.db, [item(user.userId, key.id, "0.02"), item(user.userId, key.id, "0.01")])).toMatchObject([
      { ok: false, reason: "spend_limit_reached" },
      { ok: true },
    ]);
    const lifetime = await t.app.inject({
      method: "PATCH",
      url: `/api/v1/console/keys/${key.id}`,
      headers: user.headers,
      payload: { spendLimit: "0.08", spendLimitPeriod: "lifetime" },
    });
    expect(lifetime.json()).toMatchObject({ spendLimitPeriod: "lifetime", periodSpent: "0.07", spent: "0.07", periodEndsAt: null });
  });

  it("cannot change another user's key", async () => {
    const owner = await createUserWithSession(t, { balance: "1" });
    const other = await createUserWithSession(t);
    const key = await newKey(owner, { spendLimit: "1" });
    const res = await t.app.inject({ method: "PATCH", url: `/api/v1/console/keys/${key.id}`, headers: other.headers, payload: { spendLimitPeriod: "day" } });
    expect(res.statusCode).toBe(404);
    expect(await keyView(owner, key.id)).toMatchObject({ spendLimitPeriod: "lifetime" });
  });

  it("counts a key without a spend limit over its lifetime, whatever period is sent, as the console's form sends one with an empty limit", async () => {
    t.clock.set("2026-03-06T02:00:00Z");
    const user = await createUserWithSession(t, { balance: "1" });
    const noReset = { spendLimit: null, spendLimitPeriod: "lifetime", periodEndsAt: null };
    const created = await t.app.inject({ method: "POST", url: "/api/v1/console/keys", headers: user.headers, payload: { name: "k", spendLimitPeriod: "day" } });
    expect(created.statusCode).toBe(201);
    expect(created.json().key).toMatchObject(noReset);
    const monthly = await newKey(user, { spendLimit: null, spendLimitPeriod: "month" });
    expect(await keyView(user, monthly.id)).toMatchObject(noReset);

    const patch = (payload: object) => t.app.inject({ method: "PATCH", url: `/api/v1/console/keys/${monthly.id}`, headers: user.headers, payload });
    expect((await patch({ spendLimitPeriod: "day" })).json()).toMatchObject(noReset);
    expect((await patch({ spendLimit: "0.50", spendLimitPeriod: "day" })).json()).toMatchObject({ spendLimit: "0.50", spendLimitPeriod: "day", periodEndsAt: "2026-03-06T16:00:00.000Z" });
    // Clearing the limit in the form sends the period still shown beside it.
    expect((await patch({ spendLimit: null, spendLimitPeriod: "day" })).json()).toMatchObject(noReset);
    expect((await patch({ spendLimit: "0.50", spendLimitPeriod: "month" })).json()).toMatchObject({ spendLimitPeriod: "month" });
    expect((await patch({ spendLimit: null })).json()).toMatchObject(noReset);
  });

  it("rejects an unknown period with the console's validation error", async () => {
    const user = await createUserWithSession(t);
    const res = await t.app.inject({ method: "POST", url: "/api/v1/console/keys", headers: user.headers, payload: { name: "k", spendLimitPeriod: "week" } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: "validation_failed", message: expect.stringMatching(/^spendLimitPeriod: /) });
  });

  it("gives a refunded call's amount back to the day it was charged in, not to a later day", async () => {
    t.clock.set("2026-03-07T03:00:00Z");
    const user = await createUserWithSession(t, { balance: "1" });
    const key = await newKey(user, { spendLimit: "0.05", spendLimitPeriod: "day" });
    const pending = (amount: string) => ({ ...item(user.userId, key.id, amount), ended: undefined });
    const refund = (charged: { usageId: number }, c: ChargeItem) =>
      refundBatch(t.database.db, [
        { usageId: charged.usageId, userId: user.userId, apiKeyId: key.id, amount: c.amount, requestId: c.requestId, at: t.clock.now(), finalStatus: "refunded", units: 1, httpStatus: null, latencyMs: 1 },
      ]);
    const first = pending("0.04");
    const [charged] = await chargeBatch(t.database.db, [first]);
    await refund(charged as { usageId: number }, first);
    expect(await keyView(user, key.id)).toMatchObject({ periodSpent: "0.00", spent: "0.00" });

    const yesterday = pending("0.04");
    const [old] = await chargeBatch(t.database.db, [yesterday]);
    t.clock.set("2026-03-07T16:30:00Z");
    await chargeBatch(t.database.db, [item(user.userId, key.id, "0.03")]);
    await refund(old as { usageId: number }, yesterday);
    expect(await keyView(user, key.id)).toMatchObject({ periodSpent: "0.03", spent: "0.03" });
    expect((await verifyLedger(t.database.db)).problems).toEqual([]);
  });
});

describe("a hold stamped before the period's end and counted after it", () => {
  // Another server's clock runs seconds ahead, or a later batch committed first: the key had moved
  // on to the new day (or month) when a hold stamped in the old one was counted, so the hold counts
  // in the new period, and its refund must leave that period.
  for (const [period, before, after] of [
    ["day", "2026-03-07T15:59:59.999Z", "2026-03-07T16:00:00Z"],
    ["month", "2026-03-31T15:59:59.999Z", "2026-03-31T16:00:00Z"],
  ] as const) {
    for (const holds of [1, 2]) {
      it(`gives its refund back to the ${period} it was counted in (${holds === 1 ? "settled alone" : "settled in a batch"})`, async () => {
        t.clock.set(after);
        const user = await createUserWithSession(t, { balance: "1" });
        const key = await newKey(user, { spendLimit: "0.50", spendLimitPeriod: period });
        expect((await chargeBatch(t.database.db, [item(user.userId, key.id, "0.01", new Date(after))]))[0]).toMatchObject({ ok: true });
        const held = Array.from({ length: holds }, () => ({ ...item(user.userId, key.id, "0.10", new Date(before)), ended: undefined }));
        const charged = await chargeBatch(t.database.db, held);
        expect(await keyView(user, key.id)).toMatchObject({ periodSpent: formatMoney(10_000n + 100_000n * BigInt(holds)) });
        // Each call used 0.01 of its 0.10 hold.
        const settled = await refundBatch(
          t.database.db,
          held.map((c, i) => ({
            usageId: (charged[i] as { usageId: number }).usageId,
            userId: user.userId,
            apiKeyId: key.id,
            amount: parseMoney("0.09"),
            requestId: c.requestId,
            at: new Date(after),
            finalStatus: "succeeded" as const,
            units: 1,
            httpStatus: 200,
            latencyMs: 1,
          })),
        );
        expect(settled).toEqual(held.map(() => true));
        const spent = formatMoney(10_000n + 10_000n * BigInt(holds));
        expect(await keyView(user, key.id)).toMatchObject({ periodSpent: spent, spent });
        expect(await balanceOf(user.userId)).toBe(formatMoney(1_000_000n - 10_000n - 10_000n * BigInt(holds)));
        expect((await verifyLedger(t.database.db)).problems).toEqual([]);
      });
    }
  }
});

describe("under concurrency", () => {
  it("many calls racing a daily limit never spend past it, through the gateway and through racing batches", async () => {
    t.clock.set("2026-03-20T04:00:00Z");
    const user = await createUserWithSession(t, { balance: "10" });
    const key = await newKey(user, { spendLimit: "0.0025", spendLimitPeriod: "day" });
    const answers = await Promise.all(Array.from({ length: 60 }, () => echo(key.secret)));
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(25);
    expect(answers.filter((a) => a.statusCode === 402)).toHaveLength(35);

    t.clock.set("2026-03-20T16:00:00Z");
    const batches = await Promise.all(
      Array.from({ length: 40 }, (_, i) => chargeBatch(t.database.db, Array.from({ length: 1 + (i % 3) }, () => item(user.userId, key.id, "0.0001")))),
    );
    expect(batches.flat().filter((o) => o.ok)).toHaveLength(25);
    const [row] = await t.database.db.select().from(apiKeys).where(eq(apiKeys.id, key.id));
    expect([formatMoney(row!.periodSpent), formatMoney(row!.spent)]).toEqual(["0.0025", "0.005"]);
    expect(await balanceOf(user.userId)).toBe("9.995");
    expect((await verifyLedger(t.database.db)).problems).toEqual([]);
  });
});
