import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { formatMoney } from "#shared/money";
import { queryRows, type Tx } from "../../db/client";
import { apiKeys, lotMoves, unitLots, usageRecords, users } from "../../db/schema/index";
import { metricsGrowth, TEST_METRICS_TOKEN } from "../../testing/metrics";
import { tempDataDir } from "../../testing/temp-dir";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { createTestDatabase } from "../../testing/test-database";
import { createUserWithKey } from "../../testing/keys";
import { createUserWithSession, type TestUser } from "../../testing/users";
import { chargeBatch, grantPackage, refundAbandonedCalls, refundBatch, refundLot } from "../ledger/index";
import { settleOne } from "../ledger/refunds";
import { verifyLedger } from "../ledger/verify";
import { packageTerms } from "./lots";

let t: TestApp;
let upstream: http.Server;

// 2026-03-01 16:00 in Beijing; the day ends at 16:00 UTC.
const START = "2026-03-01T08:00:00.000Z";

function writeCatalog(base: string): string {
  const starter = { id: "starter", name: "Starter", units: 10, price: "0.05", validDays: 30 };
  const tool = (id: string, extra: object) => ({ id, name: id, description: `${id} tool`, category: "test", price: "0.01", rateLimitPerMinute: 100_000, ...extra });
  const file = path.join(tempDataDir("plans-"), "tools.json");
  fs.writeFileSync(
    file,
    JSON.stringify({
      tools: [
        tool("echo", { handler: { type: "builtin", name: "echo" } }),
        tool("daily", { handler: { type: "builtin", name: "echo" }, freeQuota: { units: 3, period: "day" }, packages: [starter] }),
        tool("chars", { price: "0.001", unit: "character", handler: { type: "builtin", name: "pinyin" }, freeQuota: { units: 3, period: "month" }, packages: [starter] }),
        tool("units", {
          unit: "unit",
          maxUnitsPerCall: 10,
          handler: { type: "http", url: `${base}/units`, unitsPath: "usage.units" },
          packages: [{ ...starter, id: "big", name: "Big", units: 100, price: "0.50" }],
        }),
        tool("metered", { unit: "unit", maxUnitsPerCall: 4, handler: { type: "http", url: `${base}/units`, unitsPath: "usage.units" }, freeQuota: { units: 5, period: "day" } }),
        tool("failing", { handler: { type: "http", url: `${base}/fail` }, packages: [starter] }),
      ],
    }),
  );
  return file;
}

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (req.url?.startsWith("/fail")) return res.writeHead(500).end("boom");
      const used = Number(new URL(req.url!, "http://x").searchParams.get("use") ?? 1);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ usage: { units: used } }));
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  t = await createTestApp({ METRICS_TOKEN: TEST_METRICS_TOKEN, TOOLS_CATALOG: writeCatalog(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`) });
});
afterAll(async () => {
  await t.close();
  upstream.closeAllConnections();
  upstream.close();
});
beforeEach(() => t.clock.set(START));

async function funded(balance: string, key: object = {}) {
  const made = await createUserWithKey(t, { balance, key });
  return { user: made.user, secret: made.key.secret };
}

const call = (secret: string, toolId: string, payload: unknown = { hi: 1 }, query = "") =>
  t.app.inject({
    method: "POST",
    url: `/v1/tools/${toolId}${query}`,
    payload: JSON.stringify(payload),
    headers: { "content-type": "application/json", authorization: `Bearer ${secret}` },
  });

async function balanceOf(userId: number): Promise<string> {
  const [row] = await t.database.db.select({ balance: users.balance }).from(users).where(eq(users.id, userId));
  return formatMoney(row!.balance);
}

const lotsOf = (userId: number) => t.database.db.select().from(unitLots).where(eq(unitLots.userId, userId)).orderBy(unitLots.id);

async function buy(user: TestUser, toolId: string, packageId: string, key = `buy-${toolId}-${packageId}-${user.userId}`) {
  return t.app.inject({
    method: "POST",
    url: "/api/v1/console/packages/purchase",
    headers: { ...user.headers, "idempotency-key": key },
    payload: { toolId, packageId },
  });
}

async function expectConsistent() {
  expect((await verifyLedger(t.database.db)).problems).toEqual([]);
}

describe("the free quota", () => {
  it("pays a day's first calls, then the balance does, and it starts again at the next Beijing midnight", async () => {
    const { user, secret } = await funded("1");
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await call(secret, "daily"));
    expect(answers.map((r) => [r.statusCode, r.headers["x-tollgate-cost"], r.headers["x-quota-remaining"]])).toEqual([
      [200, "0.00", "2"],
      [200, "0.00", "1"],
      [200, "0.00", "0"],
      [200, "0.01", "0"],
    ]);
    expect(await balanceOf(user.userId)).toBe("0.99");
    // Refused for money, a call of a tool with plans still says what its lots hold.
    const { secret: broke } = await funded("0");
    const refusals = [];
    for (let i = 0; i < 4; i++) refusals.push(await call(broke, "daily"));
    expect(refusals.map((r) => [r.statusCode, r.headers["x-quota-remaining"]])).toEqual([
      [200, "2"],
      [200, "1"],
      [200, "0"],
      [402, "0"],
    ]);
    const { secret: limited } = await funded("1", { spendLimit: "0.01" });
    for (let i = 0; i < 3; i++) await call(limited, "daily");
    await call(limited, "daily");
    const overLimit = await call(limited, "daily");
    expect([overLimit.statusCode, overLimit.json().error.code, overLimit.headers["x-quota-remaining"]]).toEqual([402, "spend_limit_reached", "0"]);

    t.clock.set("2026-03-01T15:59:59.999Z"); // 23:59:59.999 in Beijing: the same day
    expect((await call(secret, "daily")).headers["x-tollgate-cost"]).toBe("0.01");
    t.clock.set("2026-03-01T16:00:00.000Z"); // 00:00 the next day: a new quota
    const next = await call(secret, "daily");
    expect([next.headers["x-tollgate-cost"], next.headers["x-quota-remaining"]]).toEqual(["0.00", "2"]);
    const free = (await lotsOf(user.userId)).filter((l) => l.source === "free");
    expect(free.map((l) => [l.effectiveAt.toISOString(), l.expiresAt.toISOString(), l.unitsLeft])).toEqual([
      ["2026-02-28T16:00:00.000Z", "2026-03-01T16:00:00.000Z", 0],
      ["2026-03-01T16:00:00.000Z", "2026-03-02T16:00:00.000Z", 2],
    ]);
    await expectConsistent();
  });

  it("a month's quota runs from the 1st in Beijing, Jan 31 to Feb and through Feb 29", async () => {
    const { secret } = await funded("1");
    const cost = async (at: string, chars: string) => {
      t.clock.set(at);
      return (await call(secret, "chars", { text: chars })).headers["x-tollgate-cost"];
    };
    expect(await cost("2028-01-31T15:59:59.999Z", "汉字汉")).toBe("0.00"); // Jan 31 23:59:59.999 in Beijing
    expect(await cost("2028-01-31T15:59:59.999Z", "汉")).toBe("0.001");
    expect(await cost("2028-01-31T16:00:00.000Z", "汉字")).toBe("0.00"); // Feb 1 00:00: a new month
    expect(await cost("2028-02-29T15:00:00.000Z", "汉字")).toBe("0.001"); // Feb 29: 1 free left of February's 3
    expect(await cost("2028-02-29T16:00:00.000Z", "汉字汉")).toBe("0.00"); // Mar 1 00:00 in Beijing
  });
});

describe("a call across sources", () => {
  it("splits exactly: 7 characters with 3 free and a package of 10 take 3 free and 4 from the package", async () => {
    const { user, secret } = await funded("1");
    expect((await buy(user, "chars", "starter")).statusCode).toBe(201);
    expect(await balanceOf(user.userId)).toBe("0.95");
    const res = await call(secret, "chars", { text: "汉字汉字汉字汉" });
    expect(res.statusCode).toBe(200);
    expect([res.headers["x-tollgate-cost"], res.headers["x-quota-remaining"]]).toEqual(["0.00", "6"]);
    const lots = await lotsOf(user.userId);
    expect(lots.map((l) => [l.source, l.unitsLeft])).toEqual([
      ["package", 6],
      ["free", 0],
    ]);
    const [usage] = await t.database.db.select().from(usageRecords).where(eq(usageRecords.userId, user.userId));
    expect(usage).toMatchObject({ units: 7, prepaidUnits: 7, amount: 0n });
    // 7 more: 6 from the package, 1 from the balance.
    const more = await call(secret, "chars", { text: "汉字汉字汉字汉" });
    expect([more.headers["x-tollgate-cost"], more.headers["x-quota-remaining"]]).toEqual(["0.001", "0"]);
    expect(await balanceOf(user.userId)).toBe("0.949");
    await expectConsistent();
  });

  it("draws packages soonest expiring first, and a lot expires at its exact end", async () => {
    const { user, secret } = await funded("1");
    const tool = t.app.catalog.get("daily")!;
    const terms = packageTerms(tool, "starter")!;
    await grantPackage(t.database.db, { userId: user.userId, terms: { ...terms, validDays: 2 }, count: 1, at: t.clock.now(), idempotencyKey: "late" });
    await grantPackage(t.database.db, { userId: user.userId, terms: { ...terms, validDays: 1 }, count: 1, at: t.clock.now(), idempotencyKey: "soon" });
    for (let i = 0; i < 4; i++) await call(secret, "daily"); // 3 free, then 1 from the soonest-expiring grant
    expect((await lotsOf(user.userId)).map((l) => [l.source, l.expiresAt.toISOString(), l.unitsLeft])).toEqual([
      ["grant", "2026-03-03T08:00:00.000Z", 10],
      ["grant", "2026-03-02T08:00:00.000Z", 9],
      ["free", "2026-03-01T16:00:00.000Z", 0],
    ]);
    t.clock.set("2026-03-02T07:59:59.999Z");
    // The next day's quota: 3, this call takes 1 of it; 9 and 10 in the grants.
    expect((await call(secret, "daily")).headers["x-quota-remaining"]).toBe(String(2 + 9 + 10));
    t.clock.set("2026-03-02T08:00:00.000Z"); // the one-day grant has expired, to the millisecond
    const res = await call(secret, "daily");
    expect(res.headers["x-quota-remaining"]).toBe(String(1 + 10));
    await expectConsistent();
  });
});

describe("held units", () => {
  it("an upstream's per-unit hold draws from a package, and what it did not use goes back", async () => {
    const { user, secret } = await funded("1");
    expect((await buy(user, "units", "big")).statusCode).toBe(201);
    const res = await call(secret, "units", {}, "?use=4");
    expect(res.statusCode).toBe(200);
    expect([res.headers["x-tollgate-cost"], res.headers["x-quota-remaining"]]).toEqual(["0.00", "96"]);
    expect((await lotsOf(user.userId)).map((l) => l.unitsLeft)).toEqual([96]);
    const moves = await t.database.db.select().from(lotMoves).orderBy(lotMoves.id);
    const [usage] = await t.database.db.select().from(usageRecords).where(eq(usageRecords.userId, user.userId));
    const [lot] = await lotsOf(user.userId);
    // One package paid the whole hold: its draw is on the usage row, what went back a move of its own.
    expect(usage).toMatchObject({ units: 4, prepaidUnits: 4, amount: 0n, status: "succeeded", drawnLotId: lot!.id, drawnLotUnits: 10 });
    expect(moves.filter((m) => m.usageId === usage!.id).map((m) => [m.lotId, m.kind, m.units])).toEqual([[lot!.id, "return", -6]]);
    await expectConsistent();
  });

  it("a settlement that gives units back but no money locks the user first, as charges do, so the two cannot deadlock over lots", async () => {
    const { user } = await funded("1");
    expect((await buy(user, "units", "big")).statusCode).toBe(201);
    const [key] = await t.database.db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.userId, user.userId));
    const at = new Date(START);
    const prepaid = { price: 10_000n, freeUnits: 0, freeFrom: at, freeUntil: at, stopWhenOut: false };
    const [held] = await chargeBatch(t.database.db, [{ userId: user.userId, apiKeyId: key!.id, toolId: "units", units: 10, amount: 100_000n, requestId: "held-ten", at, prepaid }]);
    if (!held?.ok) throw new Error("the hold was refused");
    const usersLocked = await t.database.db.transaction(async (tx) => {
      const settled = await settleOne(tx, { usageId: held.usageId, userId: user.userId, apiKeyId: key!.id, amount: 0n, requestId: "held-ten", at, finalStatus: "succeeded", units: 4, httpStatus: 200, latencyMs: 1 });
      expect(settled).toBe(true);
      return queryRows<{ mode: string }>(tx, sql`select mode from pg_locks where locktype = 'relation' and relation = 'users'::regclass and pid = pg_backend_pid()`);
    });
    expect(usersLocked.map((l) => l.mode)).toContain("RowShareLock");
    expect((await lotsOf(user.userId)).map((l) => l.unitsLeft)).toEqual([96]);
    await expectConsistent();
  });

  it("a hold that needs the balance too gives the balance back first", async () => {
    const { user, secret } = await funded("1");
    const terms = { ...packageTerms(t.app.catalog.get("units")!, "big")!, units: 5 };
    await grantPackage(t.database.db, { userId: user.userId, terms, count: 1, at: t.clock.now(), idempotencyKey: "five" });
    const res = await call(secret, "units", {}, "?use=7"); // holds 5 from the lot and 5 × 0.01 from the balance, uses 7
    expect([res.headers["x-tollgate-cost"], res.headers["x-quota-remaining"]]).toEqual(["0.02", "0"]);
    expect(await balanceOf(user.userId)).toBe("0.98");
    await expectConsistent();
  });

  it("a failed call gives every unit back to its lot, and so does the abandoned-call sweep", async () => {
    const { user, secret } = await funded("1");
    expect((await buy(user, "failing", "starter")).statusCode).toBe(201);
    const res = await call(secret, "failing");
    expect(res.statusCode).toBe(502);
    expect((await lotsOf(user.userId)).map((l) => l.unitsLeft)).toEqual([10]);

    // A process that died holding a call: its usage row stays pending until the sweep.
    const userId = user.userId;
    const [key] = await t.database.db.select().from(usageRecords).where(eq(usageRecords.userId, userId));
    const { chargeBatch } = await import("../ledger/index");
    const terms = { price: 10_000n, freeUnits: 0, freeFrom: t.clock.now(), freeUntil: t.clock.now(), stopWhenOut: false };
    const [held] = await chargeBatch(t.database.db, [
      { userId, apiKeyId: key!.apiKeyId, toolId: "failing", units: 1, amount: 10_000n, requestId: "dead-process-call", at: t.clock.now(), prepaid: terms },
    ]);
    expect(held).toMatchObject({ ok: true, prepaidUnits: 1, prepaidLeft: 9 });
    t.clock.advance(20 * 60_000);
    expect((await refundAbandonedCalls(t.database.db, { olderThan: new Date(t.clock.now().getTime() - 10 * 60_000), now: t.clock.now() })).calls).toBe(1);
    expect((await lotsOf(userId)).map((l) => l.unitsLeft)).toEqual([10]);
    expect(await balanceOf(userId)).toBe("0.95");
    await expectConsistent();
  });
});

describe("a key that stops when prepaid units run out", () => {
  it("is refused with prepaid_exhausted and nothing moves; the default key pays from the balance", async () => {
    const { user, secret } = await funded("1", { whenPrepaidRunsOut: "stop" });
    for (let i = 0; i < 3; i++) expect((await call(secret, "daily")).statusCode).toBe(200);
    const refused = await call(secret, "daily");
    expect(refused.statusCode).toBe(402);
    expect(refused.json().error.code).toBe("prepaid_exhausted");
    expect(refused.headers["x-quota-remaining"]).toBe("0");
    expect(await balanceOf(user.userId)).toBe("1.00");
    // A tool without plans is not affected by the setting.
    expect((await call(secret, "echo")).headers["x-tollgate-cost"]).toBe("0.01");
    const keys = await t.app.inject({ url: "/api/v1/console/keys", headers: user.headers });
    expect(keys.json().keys[0].whenPrepaidRunsOut).toBe("stop");
    await expectConsistent();
  });
});

describe("buying a package", () => {
  it("debits the balance and makes its lot once per Idempotency-Key; an unknown package or a short balance is refused", async () => {
    const { user } = await funded("0.07");
    const first = await buy(user, "daily", "starter", "purchase-once-1");
    expect(first.statusCode).toBe(201);
    expect(first.json()).toMatchObject({ balance: "0.02", lot: { source: "package", name: "Starter", unitsLeft: 10, pricePaid: "0.05", expiresAt: "2026-03-31T08:00:00.000Z" } });
    const again = await buy(user, "daily", "starter", "purchase-once-1");
    expect(again.statusCode).toBe(201);
    expect(again.json().lot.id).toBe(first.json().lot.id);
    expect(await balanceOf(user.userId)).toBe("0.02");

    const short = await buy(user, "daily", "starter", "purchase-short");
    expect(short.statusCode).toBe(402);
    expect(short.json()).toMatchObject({ code: "insufficient_balance" });
    const unknown = await buy(user, "daily", "gold", "purchase-unknown");
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: "unknown_package" });
    expect((await lotsOf(user.userId)).length).toBe(1);
    // A malformed key is refused as the gateway refuses one, before anything is bought.
    const badKey = await buy(user, "daily", "starter", "bad key!");
    expect(badKey.statusCode).toBe(400);
    expect(badKey.json()).toEqual({ code: "invalid_idempotency_key", message: "Idempotency-Key must be 8 to 128 letters, digits, '-' or '_'" });
    expect((await lotsOf(user.userId)).length).toBe(1);
    await expectConsistent();
  });

  it("lists the user's lots in draw order, with this period's free quota before its first call", async () => {
    const { user } = await funded("1");
    await buy(user, "daily", "starter");
    const res = await t.app.inject({ url: "/api/v1/console/lots", headers: user.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json().lots.map((l: { toolId: string; source: string; unitsLeft: number }) => [l.toolId, l.source, l.unitsLeft])).toEqual([
      ["daily", "free", 3],
      ["metered", "free", 5],
      ["chars", "free", 3],
      ["daily", "package", 10],
    ]);
  });

  it("lists usable lots in draw order before spent, expired and refunded ones, latest expiry first", async () => {
    const { user } = await funded("1");
    const terms = packageTerms(t.app.catalog.get("daily")!, "starter")!;
    const grant = (idempotencyKey: string, validDays: number) => grantPackage(t.database.db, { userId: user.userId, terms: { ...terms, validDays }, count: 1, at: t.clock.now(), idempotencyKey });
    await grant(`short-${user.userId}`, 1);
    await grant(`long-${user.userId}`, 20);
    await buy(user, "daily", "starter");
    await grant(`mid-${user.userId}`, 10);
    t.clock.set("2026-03-03T08:00:00.000Z"); // two days on: the 1-day grant has expired
    const res = await t.app.inject({ url: "/api/v1/console/lots", headers: { authorization: user.headers.authorization } });
    expect(res.json().lots.map((l: { toolId: string; source: string; expiresAt: string; usable: boolean }) => [l.toolId, l.source, l.expiresAt.slice(0, 10), l.usable])).toEqual([
      ["daily", "free", "2026-03-03", true],
      ["metered", "free", "2026-03-03", true],
      ["chars", "free", "2026-03-31", true],
      ["daily", "grant", "2026-03-11", true],
      ["daily", "grant", "2026-03-21", true],
      ["daily", "package", "2026-03-31", true],
      ["daily", "grant", "2026-03-02", false],
    ]);
  });
});

describe("under concurrency", () => {
  it("twenty calls against one unit left in a lot: exactly one draws it, the others pay from the balance", async () => {
    const { user, secret } = await funded("1");
    const terms = packageTerms(t.app.catalog.get("daily")!, "starter")!;
    // Today's free quota spent, one unit left in a lot.
    for (let i = 0; i < 3; i++) await call(secret, "daily");
    await grantPackage(t.database.db, { userId: user.userId, terms: { ...terms, units: 1 }, count: 1, at: t.clock.now(), idempotencyKey: "one" });
    const answers = await Promise.all(Array.from({ length: 20 }, () => call(secret, "daily")));
    expect(answers.every((r) => r.statusCode === 200)).toBe(true);
    expect(answers.filter((r) => r.headers["x-tollgate-cost"] === "0.00").length).toBe(1);
    expect(await balanceOf(user.userId)).toBe(formatMoney(1_000_000n - 19n * 10_000n));
    expect((await lotsOf(user.userId)).map((l) => l.unitsLeft)).toEqual([0, 0]);
    await expectConsistent();
  });

  it("lone charges on connections of their own, while holds give units back: a lot never gives more than it has", async () => {
    const { user } = await funded("1");
    const [key] = await t.database.db.select().from(apiKeys).where(eq(apiKeys.userId, user.userId));
    const terms = packageTerms(t.app.catalog.get("units")!, "big")!;
    await grantPackage(t.database.db, { userId: user.userId, terms: { ...terms, units: 10 }, count: 1, at: t.clock.now(), idempotencyKey: "ten" });
    const at = t.clock.now();
    const item = (requestId: string, units: number) => ({
      userId: user.userId,
      apiKeyId: key!.id,
      toolId: "units",
      units,
      amount: 10_000n * BigInt(units),
      requestId: `lone-${requestId}`,
      at,
      prepaid: { price: 10_000n, freeUnits: 0, freeFrom: at, freeUntil: at, stopWhenOut: true },
    });
    // Five holds of 2 units take the lot's 10; each gives its 2 back as the lone calls draw.
    const holds = [];
    for (let i = 0; i < 5; i++) {
      const [held] = await chargeBatch(t.database.db, [item(`hold-${i}`, 2)]);
      if (!held!.ok) throw new Error(`hold ${i} was refused: ${held!.reason}`);
      holds.push({ usageId: held!.usageId, requestId: `lone-hold-${i}` });
    }
    const [drained] = await lotsOf(user.userId);
    expect(drained!.unitsLeft).toBe(0);

    const returns = holds.map((hold) =>
      refundBatch(t.database.db, [{ ...hold, userId: user.userId, apiKeyId: key!.id, amount: 0n, at, finalStatus: "refunded", units: 0, httpStatus: null, latencyMs: 1 }]),
    );
    const charges = Array.from({ length: 20 }, (_, i) => chargeBatch(t.database.db, [item(`call-${i}`, 1)]).then(([outcome]) => outcome!));
    const [outcomes] = await Promise.all([Promise.all(charges), Promise.all(returns)]);

    const drawn = outcomes.filter((o) => o.ok);
    expect(outcomes.filter((o) => !o.ok).every((o) => !o.ok && o.reason === "prepaid_exhausted")).toBe(true);
    expect(drawn.every((o) => o.ok && o.prepaidUnits === 1)).toBe(true);
    const [lot] = await lotsOf(user.userId);
    expect(lot!.unitsLeft).toBe(10 - drawn.length);
    expect(await balanceOf(user.userId)).toBe("1.00");
    await expectConsistent();
  });

  it("a key past its spend limit is refused a call a lot would pay whole, and the lot keeps its units", async () => {
    const { user } = await funded("1");
    const [key] = await t.database.db.select().from(apiKeys).where(eq(apiKeys.userId, user.userId));
    const terms = packageTerms(t.app.catalog.get("units")!, "big")!;
    await grantPackage(t.database.db, { userId: user.userId, terms: { ...terms, units: 10 }, count: 1, at: t.clock.now(), idempotencyKey: "ten" });
    // A limit lowered below what the key had spent: even a call that costs no money is refused.
    await t.database.db.update(apiKeys).set({ spent: 20_000n, spendLimit: 10_000n }).where(eq(apiKeys.id, key!.id));
    const at = t.clock.now();
    const prepaid = { price: 10_000n, freeUnits: 0, freeFrom: at, freeUntil: at, stopWhenOut: false };
    const [outcome] = await chargeBatch(t.database.db, [
      { userId: user.userId, apiKeyId: key!.id, toolId: "units", units: 3, amount: 30_000n, requestId: "past-limit", at, prepaid },
    ]);
    expect(outcome).toEqual({ ok: false, reason: "spend_limit_reached", prepaidLeft: 10 });
    expect((await lotsOf(user.userId)).map((l) => l.unitsLeft)).toEqual([10]);
    expect(await t.database.db.select().from(usageRecords).where(eq(usageRecords.userId, user.userId))).toEqual([]);
    await expectConsistent();
  });
});

describe("a user with a year of free quotas behind them", () => {
  it("a call reads the lots it can draw from, not every past period's", async () => {
    const { user } = await funded("1");
    const [key] = await t.database.db.select().from(apiKeys).where(eq(apiKeys.userId, user.userId));
    // What a year leaves: a free lot for each Beijing day before this one, expired unused.
    await t.database.db.execute(
      sql`insert into unit_lots (user_id, tool_id, source, label, units_granted, units_left, effective_at, expires_at, created_at, origin)
          select ${user.userId}, 'daily', 'free', 'free', 3, 3, day, day + interval '1 day', day, 'free:' || to_char(day at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
          from generate_series(timestamptz '2025-02-28T16:00:00Z', timestamptz '2026-02-27T16:00:00Z', interval '1 day') as day`,
    );
    expect(await lotsOf(user.userId)).toHaveLength(365);
    // The rows the call's statements read from unit_lots, as PostgreSQL counts them: its counts
    // for a connection are flushed between transactions, so a difference within one is exact.
    const readRows = async (tx: Tx) => {
      const [counted] = await queryRows<{ rows: string }>(tx, sql`select idx_tup_fetch + seq_tup_read as rows from pg_stat_xact_user_tables where relname = 'unit_lots'`);
      return Number(counted!.rows);
    };
    const read = await t.database.db.transaction(async (tx) => {
      const before = await readRows(tx);
      const [charged] = await queryRows<{ o_outcome: string; o_prepaid_units: string }>(
        tx,
        sql`select o_outcome, o_prepaid_units from charge_call(${user.userId}, ${key!.id}, 'daily', 1, 10000, 'a-year-on', ${START}::timestamptz, 200, 1,
              ${START}::timestamptz, 10000, 3, '2026-02-28T16:00:00Z'::timestamptz, '2026-03-01T16:00:00Z'::timestamptz)`,
      );
      expect([charged!.o_outcome, Number(charged!.o_prepaid_units)]).toEqual(["ok", 1]);
      return (await readRows(tx)) - before;
    });
    // Today's new free lot, found by the draw's read and then updated by its id.
    expect(read).toBeLessThanOrEqual(2);
    expect((await lotsOf(user.userId)).filter((lot) => lot.unitsLeft < 3).map((lot) => [lot.effectiveAt.toISOString(), lot.unitsLeft])).toEqual([["2026-02-28T16:00:00.000Z", 2]]);
    await expectConsistent();
  });
});

describe("a batch of calls of tools with plans", () => {
  const dailyFree = { freeUnits: 3, freeFrom: new Date("2026-02-28T16:00:00Z"), freeUntil: new Date("2026-03-01T16:00:00Z") };
  let batches = 0;

  async function batchOf(balance: string) {
    const { user } = await funded(balance);
    const batch = `batch${++batches}`;
    const [key] = await t.database.db.select().from(apiKeys).where(eq(apiKeys.userId, user.userId));
    const item = (requestId: string, units: number, { stopWhenOut = false, at = t.clock.now(), free = dailyFree, toolId = "daily" } = {}) => ({
      userId: user.userId,
      apiKeyId: key!.id,
      toolId,
      units,
      amount: 10_000n * BigInt(units),
      requestId: `${batch}-${requestId}`,
      at,
      ended: { httpStatus: 200, latencyMs: 1, at },
      prepaid: { price: 10_000n, ...free, stopWhenOut },
    });
    const usage = async () =>
      (await t.database.db.select().from(usageRecords).where(eq(usageRecords.userId, user.userId)).orderBy(usageRecords.id)).map((r) => [
        r.requestId.replace(`${batch}-`, ""),
        r.units,
        r.prepaidUnits,
        formatMoney(r.amount),
      ]);
    return { user, item, usage };
  }

  it("draws each call in arrival order, set-wise; a call the balance refuses writes nothing and draws nothing, though later calls were drawn as if it had", async () => {
    const { user, item, usage } = await batchOf("0.02");
    // b1: 2 free. b2: 1 free + 3 from the balance, which has 0.02: refused. b4 was drawn after b2's
    // free unit, so pays from the balance, and b5 too; b2's free unit stays in the lot.
    const outcomes = await chargeBatch(t.database.db, [item("b1", 2), item("b2", 4), item("b4", 1), item("b5", 1)]);
    expect(outcomes).toMatchObject([
      { ok: true, prepaidUnits: 2, prepaidLeft: 1, prepaidDraws: [{ source: "free", units: 2 }] },
      { ok: false, reason: "insufficient_balance", prepaidLeft: 1 },
      { ok: true, prepaidUnits: 0, prepaidLeft: 0, balance: 10_000n, prepaidDraws: [] },
      { ok: true, prepaidUnits: 0, prepaidLeft: 0, balance: 0n },
    ]);
    expect((await lotsOf(user.userId)).map((l) => [l.source, l.unitsLeft])).toEqual([["free", 1]]);
    expect(await usage()).toEqual([
      ["b1", 2, 2, "0.00"],
      ["b4", 1, 0, "0.01"],
      ["b5", 1, 0, "0.01"],
    ]);
    await expectConsistent();
  });

  it("splits a call across the free quota and a package, set-wise, and the next calls take the package's rest, then the balance", async () => {
    const { user, item, usage } = await batchOf("1");
    const terms = packageTerms(t.app.catalog.get("daily")!, "starter")!;
    await grantPackage(t.database.db, { userId: user.userId, terms, count: 1, at: t.clock.now(), idempotencyKey: "batch-split" });
    // 3 free, then the package's 10: a takes 2 free, b 1 free + 4 package, c 6 package, d 1 from the balance.
    const outcomes = await chargeBatch(t.database.db, [item("a", 2), item("b", 5), item("c", 6), item("d", 1)]);
    expect(outcomes).toMatchObject([
      { ok: true, prepaidUnits: 2, prepaidLeft: 11, prepaidDraws: [{ source: "free", units: 2 }] },
      { ok: true, prepaidUnits: 5, prepaidLeft: 6, prepaidDraws: [{ source: "free", units: 1 }, { source: "grant", units: 4 }] },
      { ok: true, prepaidUnits: 6, prepaidLeft: 0, prepaidDraws: [{ source: "grant", units: 6 }] },
      { ok: true, prepaidUnits: 0, prepaidLeft: 0, prepaidDraws: [], balance: 990_000n },
    ]);
    expect((await lotsOf(user.userId)).map((l) => [l.source, l.unitsLeft])).toEqual([
      ["grant", 0],
      ["free", 0],
    ]);
    expect(await usage()).toEqual([
      ["a", 2, 2, "0.00"],
      ["b", 5, 5, "0.00"],
      ["c", 6, 6, "0.00"],
      ["d", 1, 0, "0.01"],
    ]);
    await expectConsistent();
  });

  it("two users' calls of two tools, interleaved in one batch, each draw from their own user's lots of their own tool", async () => {
    const a = await batchOf("1");
    const b = await batchOf("1");
    const noFree = { freeUnits: 0, freeFrom: dailyFree.freeFrom, freeUntil: dailyFree.freeUntil };
    const grant = (userId: number, toolId: string, packageId: string) =>
      grantPackage(t.database.db, { userId, terms: packageTerms(t.app.catalog.get(toolId)!, packageId)!, count: 1, at: t.clock.now(), idempotencyKey: `mixed-${userId}-${toolId}` });
    await grant(a.user.userId, "units", "big");
    await grant(b.user.userId, "daily", "starter");
    const outcomes = await chargeBatch(t.database.db, [
      a.item("a1", 2),
      b.item("b1", 4),
      a.item("a2", 5, { toolId: "units", free: noFree }),
      b.item("b2", 2),
      a.item("a3", 2),
      a.item("a4", 1, { toolId: "units", free: noFree }),
    ]);
    expect(outcomes).toMatchObject([
      { ok: true, prepaidUnits: 2, prepaidLeft: 1, prepaidDraws: [{ source: "free", units: 2 }] },
      { ok: true, prepaidUnits: 4, prepaidLeft: 9, prepaidDraws: [{ source: "free", units: 3 }, { source: "grant", units: 1 }] },
      { ok: true, prepaidUnits: 5, prepaidLeft: 95, prepaidDraws: [{ source: "grant", units: 5 }] },
      { ok: true, prepaidUnits: 2, prepaidLeft: 7, prepaidDraws: [{ source: "grant", units: 2 }] },
      { ok: true, prepaidUnits: 1, prepaidLeft: 0, prepaidDraws: [{ source: "free", units: 1 }], balance: 990_000n },
      { ok: true, prepaidUnits: 1, prepaidLeft: 94, prepaidDraws: [{ source: "grant", units: 1 }] },
    ]);
    expect((await lotsOf(a.user.userId)).map((l) => [l.toolId, l.source, l.unitsLeft])).toEqual([
      ["units", "grant", 94],
      ["daily", "free", 0],
    ]);
    expect((await lotsOf(b.user.userId)).map((l) => [l.toolId, l.source, l.unitsLeft])).toEqual([
      ["daily", "grant", 7],
      ["daily", "free", 0],
    ]);
    expect(await a.usage()).toEqual([
      ["a1", 2, 2, "0.00"],
      ["a2", 5, 5, "0.00"],
      ["a3", 2, 1, "0.01"],
      ["a4", 1, 1, "0.00"],
    ]);
    await expectConsistent();
  });

  it("one after another where a key that stops would find its lots short: what a refused call left is there for the next", async () => {
    const { user, item, usage } = await batchOf("0.02");
    // b2 is refused by the balance and draws nothing, so b3 (a key that stops) finds b2's free unit.
    const stopping = { stopWhenOut: true };
    const outcomes = await chargeBatch(t.database.db, [item("b1", 2), item("b2", 4), item("b3", 1, stopping), item("b4", 1), item("b5", 2, stopping)]);
    expect(outcomes).toMatchObject([
      { ok: true, prepaidUnits: 2, prepaidLeft: 1 },
      { ok: false, reason: "insufficient_balance", prepaidLeft: 1 },
      { ok: true, prepaidUnits: 1, prepaidLeft: 0, prepaidDraws: [{ source: "free", units: 1 }] },
      { ok: true, prepaidUnits: 0, prepaidLeft: 0, balance: 10_000n },
      { ok: false, reason: "prepaid_exhausted", prepaidLeft: 0 },
    ]);
    expect((await lotsOf(user.userId)).map((l) => [l.source, l.unitsLeft])).toEqual([["free", 0]]);
    expect(await usage()).toEqual([
      ["b1", 2, 2, "0.00"],
      ["b3", 1, 1, "0.00"],
      ["b4", 1, 0, "0.01"],
    ]);
    await expectConsistent();
  });

  it("a batch across midnight in Beijing draws each call from its own day's free quota", async () => {
    const { user, item } = await batchOf("1");
    const beforeMidnight = new Date("2026-03-01T15:59:59.999Z");
    const atMidnight = new Date("2026-03-01T16:00:00.000Z");
    const nextDay = { at: atMidnight, free: { freeUnits: 3, freeFrom: atMidnight, freeUntil: new Date("2026-03-02T16:00:00Z") } };
    const outcomes = await chargeBatch(t.database.db, [item("late", 2, { at: beforeMidnight }), item("early", 2, nextDay), item("later", 2, nextDay)]);
    expect(outcomes).toMatchObject([
      { ok: true, prepaidUnits: 2, prepaidLeft: 1 },
      { ok: true, prepaidUnits: 2, prepaidLeft: 1 },
      { ok: true, prepaidUnits: 1, prepaidLeft: 0, balance: 990_000n },
    ]);
    expect((await lotsOf(user.userId)).map((l) => [l.source, l.unitsLeft, l.expiresAt.toISOString()])).toEqual([
      ["free", 1, "2026-03-01T16:00:00.000Z"],
      ["free", 0, "2026-03-02T16:00:00.000Z"],
    ]);
    await expectConsistent();
  });
});

describe("the metrics", () => {
  const prepaid = (tool: string, source: string) => `tollgate_gateway_prepaid_units_total{tool="${tool}",source="${source}"}`;
  const balance = (tool: string) => `tollgate_gateway_charged_micros_total{tool="${tool}"}`;

  it("count package sales with their money, and the units lots paid by tool and source, net of what a hold gave back, apart from the balance's money", async () => {
    const { user, secret } = await funded("1");
    const sales = ['tollgate_package_sales_total{tool="chars"}', 'tollgate_package_sale_micros_total{tool="chars"}'];
    expect(await metricsGrowth(t.app, sales, () => buy(user, "chars", "starter"))).toEqual({ [sales[0]!]: 1, [sales[1]!]: 50_000 });
    // A retried purchase buys nothing.
    expect(await metricsGrowth(t.app, sales, () => buy(user, "chars", "starter"))).toEqual({ [sales[0]!]: 0, [sales[1]!]: 0 });

    const chars = [prepaid("chars", "free"), prepaid("chars", "package"), prepaid("chars", "grant"), balance("chars")];
    // 7 characters: 3 free, 4 from the package; then 6 from the package and 1 from the balance.
    expect(await metricsGrowth(t.app, chars, () => call(secret, "chars", { text: "汉字汉字汉字汉" }))).toEqual({ [chars[0]!]: 3, [chars[1]!]: 4, [chars[2]!]: 0, [chars[3]!]: 0 });
    expect(await metricsGrowth(t.app, chars, () => call(secret, "chars", { text: "汉字汉字汉字汉" }))).toEqual({ [chars[0]!]: 0, [chars[1]!]: 6, [chars[2]!]: 0, [chars[3]!]: 1000 });

    // A hold of 10: 5 from a grant, 5 from the balance; it uses 3, all from the grant, and the balance's part comes back.
    const terms = { ...packageTerms(t.app.catalog.get("units")!, "big")!, units: 5 };
    await grantPackage(t.database.db, { userId: user.userId, terms, count: 1, at: t.clock.now(), idempotencyKey: "metrics-grant" });
    const units = [prepaid("units", "grant"), prepaid("units", "package"), balance("units")];
    expect(await metricsGrowth(t.app, units, () => call(secret, "units", {}, "?use=3"))).toEqual({ [units[0]!]: 3, [units[1]!]: 0, [units[2]!]: 0 });

    // A failed call gives its units back: nothing counted.
    expect((await buy(user, "failing", "starter")).statusCode).toBe(201);
    const failing = [prepaid("failing", "package"), balance("failing")];
    expect(await metricsGrowth(t.app, failing, () => call(secret, "failing"))).toEqual({ [failing[0]!]: 0, [failing[1]!]: 0 });

    // Calls arriving together, charged in batches: 3 free, then the balance.
    const daily = [prepaid("daily", "free"), balance("daily"), 'tollgate_gateway_calls_total{tool="daily",outcome="served",status_class="2xx",charged="true"}'];
    const together = () => Promise.all(Array.from({ length: 6 }, () => call(secret, "daily")));
    expect(await metricsGrowth(t.app, daily, together)).toEqual({ [daily[0]!]: 3, [daily[1]!]: 30_000, [daily[2]!]: 6 });
    await expectConsistent();
  });
});

describe("what a user sees", () => {
  it("the public catalog offers each tool's free quota and packages, prices as decimal strings", async () => {
    const { tools } = (await t.app.inject({ url: "/api/v1/tools" })).json();
    const byId = new Map(tools.map((tool: { id: string }) => [tool.id, tool]));
    expect(byId.get("echo")).toMatchObject({ freeQuota: null, packages: [] });
    expect(byId.get("chars")).toMatchObject({
      freeQuota: { units: 3, period: "month" },
      packages: [{ id: "starter", name: "Starter", units: 10, price: "0.05", validDays: 30, translations: {} }],
    });
  });

  it("billing details and their CSV say what paid for each call: free quota, package or grant with its expiry, the balance, each part of a split, net of what a hold gave back", async () => {
    const { user, secret } = await funded("2");
    expect((await buy(user, "chars", "starter")).statusCode).toBe(201);
    await call(secret, "chars", { text: "汉字汉字汉字汉" }); // 3 free + 4 from the package
    await call(secret, "chars", { text: "汉字汉字汉字汉" }); // 6 from the package + 1 from the balance
    const terms = { ...packageTerms(t.app.catalog.get("units")!, "big")!, units: 5 };
    await grantPackage(t.database.db, { userId: user.userId, terms, count: 1, at: t.clock.now(), idempotencyKey: "billing-grant" });
    await call(secret, "units", {}, "?use=3"); // holds 5 from the grant and 5 from the balance, uses 3: all from the grant
    await call(secret, "echo"); // no plans: the balance
    expect((await call(secret, "failing")).statusCode).toBe(502); // refunded: not billed

    const page = await t.app.inject({ url: "/api/v1/console/billing", headers: user.headers });
    const expires = "2026-03-31T08:00:00.000Z";
    const starter = { source: "package", name: "Starter", expiresAt: expires, packageId: "starter", free: null };
    const balance = { source: "balance", name: null, expiresAt: null, packageId: null, free: null };
    const free = { source: "free", name: null, expiresAt: "2026-03-31T16:00:00.000Z", packageId: null };
    expect(page.json().items.map((row: { toolId: string; paidBy: unknown }) => [row.toolId, row.paidBy])).toEqual([
      ["echo", [{ ...balance, units: 1 }]],
      ["units", [{ source: "grant", name: "Big", units: 3, expiresAt: expires, packageId: "big", free: null }]],
      ["chars", [{ ...starter, units: 6 }, { ...balance, units: 1 }]],
      ["chars", [{ ...free, units: 3, free: { used: 3, of: 3, period: "month", periodStart: "2026-02-28T16:00:00.000Z" } }, { ...starter, units: 4 }]],
      ["chars", [{ ...balance, units: 10 }]], // the package bought
    ]);

    const csv = (await t.app.inject({ url: "/api/v1/console/billing.csv", headers: user.headers })).body.trim().split("\r\n");
    expect(csv[0]).toMatch(/,tokens_origin,paid_by,free_units,package_units,grant_units,balance_units,package_bought$/);
    // After the request id and the eight cells of an LLM call, empty here.
    expect(csv.slice(1, -1).map((line) => line.replace(/^.*?,{9}/, ""))).toEqual([
      "balance,0,0,0,1,",
      '"grant Big, expires 2026-03-31",0,0,3,0,',
      '"package Starter, expires 2026-03-31 ×6 + balance ×1",0,6,0,1,',
      '"free 3/3 in 2026-03 ×3 + package Starter, expires 2026-03-31 ×4",3,4,0,0,',
    ]);
    expect(csv.at(-1)).toBe('2026-03-01T16:00:00+08:00,chars,,10,0.05,,,,,,,,,,balance,0,0,0,10,"Starter, expires 2026-03-31"');
  });

  it("billing details list each package bought among the calls, in the total; a key's filter leaves them out; an operator's refund of one is a credit in charge details", async () => {
    const { user, secret } = await funded("2");
    const bought = (await buy(user, "chars", "starter")).json();
    t.clock.advance(60_000);
    await call(secret, "echo");
    t.clock.advance(60_000);
    await call(secret, "echo"); // at the same instant as the next purchase: listed above it
    expect((await buy(user, "daily", "starter")).statusCode).toBe(201);

    type Row = { kind: string; id: number; toolId: string; keyName: string | null; requestId: string | null; units: number; amount: string; purchase: unknown };
    const billing = async (query = "") => (await t.app.inject({ url: `/api/v1/console/billing${query}`, headers: user.headers })).json();
    const all = await billing();
    expect(all.items.map((row: Row) => [row.kind, row.toolId, row.amount])).toEqual([
      ["call", "echo", "0.01"],
      ["purchase", "daily", "0.05"],
      ["call", "echo", "0.01"],
      ["purchase", "chars", "0.05"],
    ]);
    expect(all.total).toEqual({ calls: 2, purchases: 2, amount: "0.12" });
    const expiresAt = "2026-03-31T08:00:00.000Z";
    expect(all.items[3]).toMatchObject({
      ...{ kind: "purchase", id: bought.lot.id, keyId: null, keyName: null, requestId: null, units: 10, llm: null },
      paidBy: [{ source: "balance", units: 10 }],
      purchase: { lotId: bought.lot.id, packageId: "starter", name: "Starter", expiresAt, refundedAt: null },
    });
    expect((await billing("?toolId=daily")).total).toEqual({ calls: 0, purchases: 1, amount: "0.05" });
    const [key] = await t.database.db.select().from(apiKeys).where(eq(apiKeys.userId, user.userId));
    const byKey = await billing(`?keyId=${key!.id}`);
    expect([byKey.items.map((row: Row) => row.kind), byKey.total]).toEqual([["call", "call"], { calls: 2, purchases: 0, amount: "0.02" }]);

    // A page at a time, across both kinds and the two rows that share an instant: each row once, in order.
    const paged: Row[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: Row[]; nextCursor: string | null } = await billing(`?limit=1${cursor ? `&cursor=${cursor}` : ""}`);
      paged.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    expect(paged.map((row) => [row.kind, row.id])).toEqual(all.items.map((row: Row) => [row.kind, row.id]));

    const refunded = await refundLot(t.database.db, { lotId: bought.lot.id, reason: "tool retired", at: t.clock.now() });
    expect(refunded).toMatchObject({ ok: true, refunded: 50_000n, units: 10 });
    expect((await billing("?toolId=chars")).items[0].purchase).toMatchObject({ refundedAt: t.clock.now().toISOString() });
    const credits = (await t.app.inject({ url: "/api/v1/console/credits", headers: user.headers })).json();
    expect(credits.items[0]).toMatchObject({ method: "package_refund", amount: "0.05", status: "succeeded", reference: "tool retired (package Starter, 10 of 10 units unused)" });
    const csv = (await t.app.inject({ url: "/api/v1/console/billing.csv?toolId=chars", headers: user.headers })).body.trim().split("\r\n");
    expect(csv[1]).toBe('2026-03-01T16:00:00+08:00,chars,,10,0.05,,,,,,,,,,balance,0,0,0,10,"Starter, expires 2026-03-31; unused units refunded on 2026-03-01"');
    await expectConsistent();
  });

  it("a refund of a lot whose every unit a call in flight holds is refused as held, not as empty", async () => {
    const { user } = await funded("2");
    const bought = (await buy(user, "chars", "starter")).json();
    const [key] = await t.database.db.select().from(apiKeys).where(eq(apiKeys.userId, user.userId));
    const prepaid = { price: 1_000n, freeUnits: 0, freeFrom: t.clock.now(), freeUntil: t.clock.now(), stopWhenOut: false };
    const hold = { userId: user.userId, apiKeyId: key!.id, toolId: "chars", units: 10, amount: 10_000n, requestId: "holds-all-ten", at: t.clock.now(), prepaid };
    const [held] = await chargeBatch(t.database.db, [hold]);
    expect(held).toMatchObject({ ok: true, prepaidUnits: 10, prepaidLeft: 0 });
    expect(await refundLot(t.database.db, { lotId: bought.lot.id, reason: "x", at: t.clock.now() })).toEqual({ ok: false, reason: "held" });
  });

  it("the call log counts every unit a call used and those its lots paid; a call lots paid whole is not said to be uncharged", async () => {
    const { user, secret } = await funded("2");
    await call(secret, "chars", { text: "汉字汉字汉" }); // 3 free + 2 from the balance
    await call(secret, "chars", { text: "汉字" }); // the balance
    const terms = { ...packageTerms(t.app.catalog.get("units")!, "big")!, units: 5 };
    await grantPackage(t.database.db, { userId: user.userId, terms, count: 1, at: t.clock.now(), idempotencyKey: "call-log-grant" });
    await call(secret, "units", {}, "?use=3"); // all from the grant
    await call(secret, "daily"); // today's free quota
    await t.app.callLog.drain();

    const page = await t.app.inject({ url: "/api/v1/console/calls", headers: user.headers });
    expect(page.statusCode).toBe(200);
    const rows = page.json().items.map((row: { toolId: string; amount: string; units: number; prepaidUnits: number; notChargedReason: string | null }) => [
      row.toolId,
      row.amount,
      row.units,
      row.prepaidUnits,
      row.notChargedReason,
    ]);
    const prepaid = "not charged: paid from free quotas or packages";
    expect(rows).toEqual([
      ["daily", "0.00", 1, 1, prepaid],
      ["units", "0.00", 3, 3, prepaid],
      ["chars", "0.002", 2, 0, null],
      ["chars", "0.002", 5, 3, null],
    ]);
    const csv = (await t.app.inject({ url: "/api/v1/console/calls.csv", headers: user.headers })).body.trim().split("\r\n");
    expect(csv[0]).toContain(",not_charged_reason,units,prepaid_units,");
    expect(csv[2]).toContain(`,${prepaid},3,3,`);
  });

  it("a free quota's part counts the period's units used up to and including each call, net of what a hold gave back", async () => {
    const { user, secret } = await funded("2");
    await call(secret, "metered", {}, "?use=1"); // holds 4 free units, gives 3 back
    await call(secret, "metered", {}, "?use=2"); // holds 4, gives 2 back
    await call(secret, "metered", {}, "?use=4"); // holds the 2 left and 2 from the balance, uses all
    await call(secret, "metered", {}, "?use=1"); // the balance
    const page = await t.app.inject({ url: "/api/v1/console/billing?toolId=metered", headers: user.headers });
    const free = { used: 0, of: 5, period: "day", periodStart: "2026-02-28T16:00:00.000Z" };
    expect(page.json().items.map((row: { paidBy: { source: string; units: number; free: unknown }[] }) => row.paidBy.map((p) => [p.source, p.units, p.free]))).toEqual([
      [["balance", 1, null]],
      [["free", 2, { ...free, used: 5 }], ["balance", 2, null]],
      [["free", 2, { ...free, used: 3 }]],
      [["free", 1, { ...free, used: 1 }]],
    ]);
    const csv = (await t.app.inject({ url: "/api/v1/console/billing.csv?toolId=metered", headers: user.headers })).body.trim().split("\r\n");
    expect(csv.slice(1).map((line) => line.replace(/^.*?,{9}/, ""))).toEqual(["balance,0,0,0,1,", "free 5/5 on 2026-03-01 ×2 + balance ×2,2,0,0,2,", "free 3/5 on 2026-03-01,2,0,0,0,", "free 1/5 on 2026-03-01,1,0,0,0,"]);
  });
});

describe("admin ledger verify", () => {
  it("reports a lot whose units left differ from its moves, a call whose prepaid units differ from the draw on its row, and a call that drew another user's lot", async () => {
    const probe = await createTestDatabase();
    try {
      const { userId } = await createUserWithSession({ database: probe, clock: t.clock }, { balance: "1" });
      await probe.db.execute(sql`insert into api_keys (id, user_id, name, key_hash, prefix, last4) values (900001, ${userId}, 'probe', 'probe-hash', 'tg_probe', '0000')`);
      const terms = packageTerms(t.app.catalog.get("daily")!, "starter")!;
      const at = t.clock.now();
      const {
        lots: [paid],
      } = await grantPackage(probe.db, { userId, terms, count: 1, at, idempotencyKey: "verify-paid" });
      const {
        lots: [edited],
      } = await grantPackage(probe.db, { userId, terms: { ...terms, validDays: 60 }, count: 1, at, idempotencyKey: "verify-edited" });
      const prepaid = { price: 10_000n, freeUnits: 0, freeFrom: at, freeUntil: at, stopWhenOut: false };
      const call = { userId, apiKeyId: 900001, toolId: "daily", units: 3, amount: 30_000n, requestId: "verify-call", at, ended: { httpStatus: 200, latencyMs: 1, at }, prepaid };
      expect(await chargeBatch(probe.db, [call])).toMatchObject([{ ok: true, prepaidUnits: 3, prepaidDraws: [{ source: "grant", units: 3 }] }]);
      expect((await verifyLedger(probe.db)).problems).toEqual([]);

      await probe.db.update(usageRecords).set({ drawnLotUnits: 4 }).where(eq(usageRecords.requestId, "verify-call"));
      await probe.db.update(unitLots).set({ unitsLeft: 5 }).where(eq(unitLots.id, edited!.id));
      expect((await verifyLedger(probe.db)).problems).toEqual(
        expect.arrayContaining([
          { type: "lot_mismatch", lotId: paid!.id, userId, used: 3, moved: 4 },
          { type: "lot_mismatch", lotId: edited!.id, userId, used: 5, moved: 0 },
          { type: "prepaid_mismatch", requestId: "verify-call", userId, prepaidUnits: 3, drawn: 4 },
        ]),
      );

      // A draw from another user's lot, or from a lot of another tool, is reported whatever the counts say.
      const { userId: other } = await createUserWithSession({ database: probe, clock: t.clock }, { balance: "1" });
      const {
        lots: [theirs],
      } = await grantPackage(probe.db, { userId: other, terms, count: 1, at, idempotencyKey: "verify-theirs" });
      await probe.db.update(usageRecords).set({ drawnLotId: theirs!.id, drawnLotUnits: 3 }).where(eq(usageRecords.requestId, "verify-call"));
      await probe.db.update(unitLots).set({ unitsLeft: terms.units - 3 }).where(eq(unitLots.id, theirs!.id));
      await probe.db.update(unitLots).set({ unitsLeft: terms.units }).where(eq(unitLots.id, paid!.id));
      expect((await verifyLedger(probe.db)).problems).toEqual([
        { type: "lot_mismatch", lotId: edited!.id, userId, used: 5, moved: 0 },
        { type: "foreign_draw", requestId: "verify-call", userId, lotId: theirs!.id },
      ]);
    } finally {
      await probe.close();
    }
  });
});
