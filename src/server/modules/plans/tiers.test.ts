import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { COST_HEADER } from "#shared/gateway";
import { formatMoney } from "#shared/money";
import { tierCounts, usageRecords, users } from "../../db/schema/index";
import { tempDataDir } from "../../testing/temp-dir";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { refuseUpdates } from "../../testing/faults";
import { createUserWithKey } from "../../testing/keys";
import { verifyLedger } from "../ledger/verify";

let t: TestApp;
let upstream: http.Server;

// 2026-03-01 16:00 in Beijing.
const START = "2026-03-01T08:00:00.000Z";
// The month's first 3 units at ¥0.01, the rest at ¥0.005.
const bands = [
  { upTo: 3, price: "0.01" },
  { upTo: null, price: "0.005" },
];

function writeCatalog(base: string): string {
  const tool = (id: string, extra: object) => ({ id, name: id, description: `${id} tool`, category: "test", rateLimitPerMinute: 100_000, ...extra });
  const perUnit = (mode: string) => ({
    unit: "unit",
    maxUnitsPerCall: 10,
    handler: { type: "http", url: `${base}/units`, unitsPath: "usage.units" },
    tiers: { mode, bands: [{ upTo: 5, price: "0.01" }, { upTo: null, price: "0.004" }] },
  });
  const file = path.join(tempDataDir("tiers-"), "tools.json");
  fs.writeFileSync(
    file,
    JSON.stringify({
      tools: [
        tool("graduated", { handler: { type: "builtin", name: "echo" }, tiers: { mode: "graduated", bands } }),
        tool("free-first", { handler: { type: "builtin", name: "echo" }, tiers: { mode: "graduated", bands }, freeQuota: { units: 2, period: "month" } }),
        tool("graduated-units", perUnit("graduated")),
        tool("volume-units", perUnit("volume")),
      ],
    }),
  );
  return file;
}

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const query = new URL(req.url!, "http://x").searchParams;
      if (query.has("fail")) return res.writeHead(500).end("boom");
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ usage: { units: Number(query.get("use") ?? 1) } }));
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  t = await createTestApp({ TOOLS_CATALOG: writeCatalog(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`) });
});
afterAll(async () => {
  await t.close();
  upstream.closeAllConnections();
  upstream.close();
});
beforeEach(() => t.clock.set(START));

const call = (secret: string, toolId: string, query = "") =>
  t.app.inject({ method: "POST", url: `/v1/tools/${toolId}${query}`, payload: "{}", headers: { "content-type": "application/json", authorization: `Bearer ${secret}` } });

async function costs(secret: string, toolId: string, count: number, query = ""): Promise<(string | number | undefined)[]> {
  const answers = [];
  for (let i = 0; i < count; i++) {
    const res = await call(secret, toolId, query);
    answers.push(res.statusCode === 200 ? (res.headers[COST_HEADER] as string) : res.statusCode);
  }
  return answers;
}

async function balanceOf(userId: number): Promise<string> {
  const [row] = await t.database.db.select({ balance: users.balance }).from(users).where(eq(users.id, userId));
  return formatMoney(row!.balance);
}

const rowsOf = (userId: number, toolId: string) =>
  t.database.db
    .select({ amount: usageRecords.amount, units: usageRecords.units, status: usageRecords.status })
    .from(usageRecords)
    .where(and(eq(usageRecords.userId, userId), eq(usageRecords.toolId, toolId)))
    .orderBy(usageRecords.id);

async function expectConsistent() {
  expect((await verifyLedger(t.database.db)).problems).toEqual([]);
}

describe("graduated tiers", () => {
  it("price a month's first calls at the first band and the next at the second, each billing row saying what it cost", async () => {
    const { user, key: { secret } } = await createUserWithKey(t, { balance: "1" });
    expect(await costs(secret, "graduated", 5)).toEqual(["0.01", "0.01", "0.01", "0.005", "0.005"]);
    expect(await balanceOf(user.userId)).toBe("0.96");
    expect((await rowsOf(user.userId, "graduated")).map((r) => [formatMoney(r.amount), r.status])).toEqual([
      ["0.01", "succeeded"],
      ["0.01", "succeeded"],
      ["0.01", "succeeded"],
      ["0.005", "succeeded"],
      ["0.005", "succeeded"],
    ]);
    await expectConsistent();
  });

  it("refuse a built-in tool's call whose hold at the dearest band the balance cannot cover, saying what it needs held, not what it would cost", async () => {
    const { key: { secret } } = await createUserWithKey(t, { balance: "0.037" });
    // Three calls at ¥0.01 fill the first band; the fourth would cost ¥0.005 but holds ¥0.01.
    expect(await costs(secret, "graduated", 3)).toEqual(["0.01", "0.01", "0.01"]);
    const refused = await call(secret, "graduated");
    expect([refused.statusCode, refused.json().error]).toEqual([
      402,
      { code: "insufficient_balance", message: "this call needs ¥0.01 held, more than the balance has: top up to continue" },
    ]);
  });

  it("split a per-unit call that crosses a band: its units before the band's end at one price, the rest at the next", async () => {
    const { user, key: { secret } } = await createUserWithKey(t, { balance: "1" });
    // 3 units at ¥0.01; then 2 more at ¥0.01 and 2 at ¥0.004.
    expect(await costs(secret, "graduated-units", 1, "?use=3")).toEqual(["0.03"]);
    expect(await costs(secret, "graduated-units", 1, "?use=4")).toEqual(["0.028"]);
    expect(await balanceOf(user.userId)).toBe("0.942");
    expect((await rowsOf(user.userId, "graduated-units")).map((r) => [formatMoney(r.amount), r.units])).toEqual([
      ["0.03", 3],
      ["0.028", 4],
    ]);
    await expectConsistent();
  });

  it("count only calls that succeeded: a failed call takes no place in the month", async () => {
    const { key: { secret } } = await createUserWithKey(t, { balance: "1" });
    expect(await costs(secret, "graduated-units", 1, "?use=5")).toEqual(["0.05"]);
    expect(await costs(secret, "graduated-units", 1, "?fail=1")).toEqual([502]);
    expect(await costs(secret, "graduated-units", 1, "?use=1")).toEqual(["0.004"]);
  });

  it("start again at the first band when a Beijing month begins", async () => {
    const { user, key: { secret } } = await createUserWithKey(t, { balance: "1" });
    t.clock.set("2026-01-31T15:59:59.999Z"); // 23:59:59.999 on January 31 in Beijing
    expect(await costs(secret, "graduated", 4)).toEqual(["0.01", "0.01", "0.01", "0.005"]);
    t.clock.set("2026-01-31T16:00:00.000Z"); // 00:00 on February 1
    expect(await costs(secret, "graduated", 1)).toEqual(["0.01"]);
    const months = await t.database.db.select().from(tierCounts).where(eq(tierCounts.userId, user.userId)).orderBy(tierCounts.monthStart);
    expect(months.map((m) => [m.monthStart.toISOString(), m.units])).toEqual([
      ["2025-12-31T16:00:00.000Z", 4],
      ["2026-01-31T16:00:00.000Z", 1],
    ]);
  });

  it("leave the free quota out of the count: the tiers price what the balance pays", async () => {
    const { key: { secret } } = await createUserWithKey(t, { balance: "1" });
    expect(await costs(secret, "free-first", 6)).toEqual(["0.00", "0.00", "0.01", "0.01", "0.01", "0.005"]);
  });
});

describe("volume tiers", () => {
  it("price all of a call's units at the band the month reaches with it, and leave earlier calls as they were", async () => {
    const { user, key: { secret } } = await createUserWithKey(t, { balance: "1" });
    expect(await costs(secret, "volume-units", 1, "?use=3")).toEqual(["0.03"]);
    // The month reaches 7 units: all 4 at the second band's ¥0.004.
    expect(await costs(secret, "volume-units", 1, "?use=4")).toEqual(["0.016"]);
    expect(await balanceOf(user.userId)).toBe("0.954");
    await expectConsistent();
  });
});

describe("a tiered success the database cannot record", () => {
  it.each([
    ["a built-in tool", "graduated", ""],
    ["an upstream's per-unit call", "graduated-units", "?use=2"],
  ])("%s is answered 500 and refunded whole, and takes no place in the month", async (_, toolId, query) => {
    const { user, key: { secret } } = await createUserWithKey(t, { balance: "1" });
    const restore = await refuseUpdates(t.database.db, "usage_records", `new.status = 'succeeded' and new.user_id = ${user.userId}`);
    try {
      const res = await call(secret, toolId, query);
      expect(res.statusCode).toBe(500);
      expect(res.json().error.code).toBe("internal_error");
    } finally {
      await restore();
    }
    expect(t.logs()).toContain("could not record a call's success; refunding it");
    expect(await balanceOf(user.userId)).toBe("1.00");
    expect((await rowsOf(user.userId, toolId)).map((r) => [r.status, formatMoney(r.amount)])).toEqual([["refunded", "0.00"]]);
    const counted = await t.database.db.select().from(tierCounts).where(eq(tierCounts.userId, user.userId));
    expect(counted.map((c) => c.units)).toEqual([]);
    // The month starts at the first band for the next call.
    expect(await costs(secret, toolId, 1, query)).toEqual([toolId === "graduated" ? "0.01" : "0.02"]);
    await expectConsistent();
  });
});

describe("tiers under concurrency", () => {
  it("charge 40 parallel calls exactly the tiers' price of 40 calls", async () => {
    const { user, key: { secret } } = await createUserWithKey(t, { balance: "1" });
    const answers = await Promise.all(Array.from({ length: 40 }, () => call(secret, "graduated")));
    expect(answers.every((r) => r.statusCode === 200)).toBe(true);
    // 3 × ¥0.01 + 37 × ¥0.005
    const charged = answers.reduce((sum, r) => sum + Math.round(Number(r.headers[COST_HEADER]) * 1000), 0);
    expect(charged).toBe(215);
    expect(await balanceOf(user.userId)).toBe("0.785");
    await expectConsistent();
  });

  it("hold each call at the dearest band: a balance for 20 holds never goes negative, and what succeeded costs the tiers' price", async () => {
    const { user, key: { secret } } = await createUserWithKey(t, { balance: "0.2" });
    const answers = await Promise.all(Array.from({ length: 60 }, () => call(secret, "graduated")));
    const served = answers.filter((r) => r.statusCode === 200).length;
    expect(answers.every((r) => r.statusCode === 200 || (r.statusCode === 402 && r.json().error.code === "insufficient_balance"))).toBe(true);
    expect(served).toBeGreaterThanOrEqual(20);
    const spent = 3 * 10_000 + (served - 3) * 5_000; // micro-units
    expect(await balanceOf(user.userId)).toBe(formatMoney(200_000n - BigInt(spent)));
    const rows = await rowsOf(user.userId, "graduated");
    expect(rows.filter((r) => r.status === "succeeded")).toHaveLength(served);
    await expectConsistent();
  });
});
