import { insertApiKey } from "../../testing/keys";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseMoney } from "#shared/money";
import { runCli } from "../../cli/run";
import { ManualClock } from "../../clock";
import { loadConfig } from "../../config";
import { queryRows, type Database } from "../../db/client";
import { usageRecords } from "../../db/schema/index";
import { createTestDatabase } from "../../testing/test-database";
import { createUserWithSession, type TestUser } from "../../testing/users";
import { buyPackage, chargeBatch, refundLot } from "../ledger/index";
import { credit, debit } from "../ledger/ledger";
import { recordTopUp } from "../ledger/topup";

let database: Database;
const clock = new ManualClock("2026-03-02T04:00:00Z");
const config = loadConfig({ NODE_ENV: "test", SESSION_SECRET: "s".repeat(32), DATA_DIR: "/tmp/tollgate-test-data" });
const at = (iso: string) => new Date(iso);
let seq = 0;

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(["admin", ...argv], { database, config, clock, out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err: err.join("\n") };
}

async function user(createdAt: string, referredBy?: number): Promise<TestUser> {
  return createUserWithSession({ database, clock: new ManualClock(createdAt) }, { referredBy });
}
async function topUp(who: TestUser, method: "alipay" | "wechat", amount: string, when: string) {
  const ref = `TG${++seq}`;
  await recordTopUp(
    database.db,
    { userId: who.userId, amount: parseMoney(amount), kind: "topup", method, reference: ref, idempotencyKey: `payment:${method}:${ref}`, at: at(when) },
    { referralBonusBasisPoints: 1000 },
  );
}
async function call(who: TestUser, tool: string, amount: string, when: string): Promise<string> {
  const requestId = `req-${++seq}`;
  const posted = await debit(database.db, { userId: who.userId, amount: parseMoney(amount), kind: "charge", method: tool, reference: requestId, idempotencyKey: `usage:${requestId}`, at: at(when) });
  expect(posted.ok).toBe(true);
  const keyId = await insertApiKey(database.db, who.userId, at(when));
  await database.db.insert(usageRecords).values({
    userId: who.userId,
    apiKeyId: keyId,
    toolId: tool,
    units: 1,
    amount: parseMoney(amount),
    status: "succeeded",
    requestId,
    createdAt: at(when),
  });
  return requestId;
}
async function refund(who: TestUser, requestId: string, amount: string, when: string) {
  await credit(database.db, { userId: who.userId, amount: parseMoney(amount), kind: "refund", method: "gateway", reference: requestId, idempotencyKey: `refund:${requestId}`, at: at(when) });
}

beforeAll(async () => {
  database = await createTestDatabase();
  // Beijing is UTC+8: 2026-02-28T16:00Z is the first instant of 2026-03-01 there.
  const early = await user("2026-02-20T02:00:00Z"); // signed up before the range
  const alice = await user("2026-02-28T15:59:59Z"); // Beijing 02-28
  const bob = await user("2026-02-28T16:00:00Z", alice.userId); // Beijing 03-01, referred by alice
  await user("2026-03-01T16:00:00Z"); // Beijing 03-02, after the range

  await topUp(early, "alipay", "100.00", "2026-02-20T03:00:00Z"); // before the range
  const old = await call(early, "echo", "1.000000", "2026-02-27T15:00:00Z"); // before the range…
  await refund(early, old, "0.400000", "2026-02-28T01:00:00Z"); // …refunded inside it: counts for echo

  await topUp(alice, "alipay", "50.00", "2026-02-28T15:59:59Z");
  await topUp(bob, "wechat", "30.00", "2026-03-01T02:00:00Z"); // pays alice a 3.00 referral bonus
  await credit(database.db, { userId: bob.userId, amount: parseMoney("20"), kind: "redemption", method: "redemption", reference: "****ABCD", idempotencyKey: "redemption:1", at: at("2026-03-01T03:00:00Z") });
  await credit(database.db, { userId: alice.userId, amount: parseMoney("5"), kind: "adjustment", method: "operator", reference: "goodwill", idempotencyKey: "operator:1", at: at("2026-03-01T04:00:00Z") });

  await call(alice, "echo", "0.000333", "2026-02-28T15:59:59Z"); // Beijing 02-28, last second
  await call(alice, "pinyin", "0.002000", "2026-02-28T16:00:00Z"); // Beijing 03-01, first second
  const partly = await call(bob, "pinyin", "1.500000", "2026-03-01T05:00:00Z");
  await refund(bob, partly, "0.500000", "2026-03-01T05:00:01Z");
  // An operator refunds a call in full (\`admin calls refund\`): its entry names the call by its key, and counts for pinyin.
  const refunded = await call(bob, "pinyin", "0.300000", "2026-03-01T05:30:00Z");
  await credit(database.db, { userId: bob.userId, amount: parseMoney("0.3"), kind: "refund", method: "operator", reference: `ticket 7 (call ${refunded})`, idempotencyKey: `operator-refund:${refunded}`, at: at("2026-03-01T05:40:00Z") });
  await call(bob, "echo", "9.000000", "2026-03-01T16:00:00Z"); // Beijing 03-02: outside

  // Alice buys a package of 5 units for 2.00, a call uses 2 of them and one of a free quota of 2, and an operator refunds the 3 left: 1.20.
  const bought = await buyPackage(database.db, {
    userId: alice.userId,
    terms: { toolId: "ocr", packageId: "p", name: "P", units: 5, price: parseMoney("2"), validDays: 30 },
    at: at("2026-03-01T06:00:00Z"),
    idempotencyKey: "stats-package",
  });
  if (!bought.ok) throw new Error("the purchase was refused");
  const keyId = await insertApiKey(database.db, alice.userId, at("2026-03-01T06:00:00Z"));
  const prepaid = { price: 10_000n, freeUnits: 2, freeFrom: at("2026-02-28T16:00:00Z"), freeUntil: at("2026-03-01T16:00:00Z"), stopWhenOut: false };
  const ended = { httpStatus: 200, latencyMs: 1, at: at("2026-03-01T06:30:00Z") };
  const [charged] = await chargeBatch(database.db, [
    { userId: alice.userId, apiKeyId: keyId, toolId: "ocr", units: 4, amount: 40_000n, requestId: "prepaid-call", at: at("2026-03-01T06:30:00Z"), ended, prepaid },
  ]);
  expect(charged).toMatchObject({ ok: true, prepaidUnits: 4 });
  expect(await refundLot(database.db, { lotId: bought.lot.id, reason: "retired", at: at("2026-03-01T07:00:00Z") })).toMatchObject({ ok: true, refunded: parseMoney("1.20") });
});
afterAll(() => database.close());

describe("tollgate admin stats", () => {
  it("prints every figure for a range of Beijing days as CSV, exact to the micro-unit", async () => {
    const res = await cli("stats", "--from", "2026-02-28", "--to", "2026-03-01", "--csv");
    expect(res.code, res.err).toBe(0);
    expect(res.out).toEqual([
      "section,key,count,amount",
      "range,2026-02-28..2026-03-01,,",
      "top_up,redemption,1,20.00",
      "top_up,topup:alipay,1,50.00",
      "top_up,topup:wechat,1,30.00",
      "top_ups_total,,3,100.00",
      // echo: 0.000333 charged, less 0.40 the gateway gave back of a call made before the range.
      "revenue_by_tool,echo,,-0.399667",
      // ocr: the package sold for 2.00 less the 1.20 refunded of it; its call was paid from the lots.
      "revenue_by_tool,ocr,,0.80",
      "revenue_by_tool,pinyin,,1.002",
      // What calls cost less what the gateway gave back (0.40 and 0.50), and the operator's refund of a call.
      "revenue_total,charges,,0.902333",
      "revenue_total,refunds,,0.30",
      "revenue_total,packages_sold,,2.00",
      "revenue_total,packages_refunded,,1.20",
      "revenue_total,revenue,,1.402333",
      "revenue_by_day,2026-02-28,,-0.399667",
      "revenue_by_day,2026-03-01,,1.802",
      "active_users,,2,",
      "active_keys,,5,",
      "sign_ups,,2,",
      "referral_bonuses,,1,3.00",
      "adjustments,,1,5.00",
      "packages_sold,,1,2.00",
      "packages_refunded,,1,1.20",
      "prepaid_units_used,free,2,",
      "prepaid_units_used,package,2,",
      // 100.00 + 5.00 + 3.00 − 1.402333
      "ledger_net,,,106.597667",
    ]);
  });

  it("agrees with the ledger: the net equals the sum of the entries of the range, and all time the sum of the balances", async () => {
    const all = await cli("stats", "--from", "2026-01-01", "--to", "2026-03-31", "--csv");
    const net = all.out.find((l) => l.startsWith("ledger_net,"))!.split(",")[3];
    const [row] = await queryRows<{ total: string }>(database.db, sql`select sum(balance)::text as total from users`);
    expect(parseMoney(net!)).toBe(BigInt(row!.total));
    const days = all.out.filter((l) => l.startsWith("revenue_by_day,"));
    expect(days).toHaveLength(90);
    const revenue = all.out.find((l) => l.startsWith("revenue_total,revenue,"))!.split(",")[3]!;
    expect(days.reduce((sum, l) => sum + parseMoney(l.split(",")[3]!), 0n)).toBe(parseMoney(revenue));
    const tools = all.out.filter((l) => l.startsWith("revenue_by_tool,"));
    expect(tools.reduce((sum, l) => sum + parseMoney(l.split(",")[3]!), 0n)).toBe(parseMoney(revenue));
    // Revenue is every charge and refund the ledger holds, calls' and packages' alike, each once.
    const [moved] = await queryRows<{ total: string }>(database.db, sql`select (-sum(amount))::text as total from ledger_entries where kind in ('charge', 'refund')`);
    expect(parseMoney(revenue)).toBe(BigInt(moved!.total));
  });

  it("gives the same figures as one JSON document with --json, amounts as decimal strings", async () => {
    const res = await cli("stats", "--from", "2026-02-28", "--to", "2026-03-01", "--json");
    expect(res.code, res.err).toBe(0);
    const figures = JSON.parse(res.out.join("\n"));
    expect(figures).toMatchObject({
      range: { from: "2026-02-28", to: "2026-03-01" },
      topUps: [
        { kind: "redemption", method: "redemption", count: 1, amount: "20.00" },
        { kind: "topup", method: "alipay", count: 1, amount: "50.00" },
        { kind: "topup", method: "wechat", count: 1, amount: "30.00" },
      ],
      revenueByTool: [
        { tool: "echo", charges: "-0.399667", refunds: "0.00", packagesSold: "0.00", packagesRefunded: "0.00", revenue: "-0.399667" },
        { tool: "ocr", charges: "0.00", refunds: "0.00", packagesSold: "2.00", packagesRefunded: "1.20", revenue: "0.80" },
        { tool: "pinyin", charges: "1.302", refunds: "0.30", packagesSold: "0.00", packagesRefunded: "0.00", revenue: "1.002" },
      ],
      activeUsers: 2,
      activeKeys: 5,
      signUps: 2,
      referralBonuses: { count: 1, amount: "3.00" },
      adjustments: { count: 1, amount: "5.00" },
      packages: { sold: { count: 1, amount: "2.00" }, refunded: { count: 1, amount: "1.20" } },
      prepaidUnitsUsed: [
        { source: "free", units: 2 },
        { source: "package", units: 2 },
      ],
      ledgerNet: "106.597667",
    });
    expect(figures.revenueByDay.map((d: { day: string; revenue: string }) => [d.day, d.revenue])).toEqual([
      ["2026-02-28", "-0.399667"],
      ["2026-03-01", "1.802"],
    ]);
    expect((await cli("stats", "--csv", "--json")).code).toBe(64);
  });

  it("defaults to the last 30 Beijing days and prints a readable report", async () => {
    const res = await cli("stats");
    expect(res.code).toBe(0);
    expect(res.out[0]).toBe("Figures for 2026-02-01 to 2026-03-02 (Beijing time), from the ledger");
    expect(res.out.join("\n")).toMatch(/wechat \(topup\)\s+1\s+30\.00/);
    expect(res.out.join("\n")).toMatch(/Referral bonuses paid\s+1, 3\.00/);
    const text = res.out.join("\n");
    expect(text).toMatch(/Packages sold\s+1, 2\.00 \(in the revenue above\)\nPackages refunded\s+1, 1\.20 \(in the revenue above\)\nPrepaid units used\s+free 2, package 2/);
    // A redemption's method and kind are one word: printed once.
    expect(text).toMatch(/^ {2}redemption +1 +20\.00$/m);
    expect(text).not.toContain("redemption (redemption)");
    expect(text).toContain("Revenue by tool: calls charged (less what the gateway gave back) less refunded, plus packages sold less refunded");
    // Charged is what the calls cost; refunded, only what an operator refunded.
    expect(text).toMatch(/^ {2}pinyin +1\.002 {2}\(calls charged 1\.302, refunded 0\.30; packages sold 0\.00, refunded 0\.00\)$/m);
    expect(text).toMatch(/^ {2}ocr +0\.80 {2}\(calls charged 0\.00, refunded 0\.00; packages sold 2\.00, refunded 1\.20\)$/m);
    expect(text).toMatch(/^ {2}2026-03-01 +1\.802$/m);
  });

  it("refuses dates that are not dates and a reversed range", async () => {
    expect((await cli("stats", "--from", "2026-02-30")).code).toBe(64);
    expect((await cli("stats", "--to", "yesterday")).code).toBe(64);
    expect((await cli("stats", "--from", "2026-03-02", "--to", "2026-03-01")).code).toBe(64);
    // A --from in the future without --to names today as the end it is after, not a --to never given.
    const future = await cli("stats", "--from", "2026-03-05");
    expect([future.code, future.err.split("\n")[0]]).toEqual([64, "--from 2026-03-05 is after today (2026-03-02, Beijing time), where the range ends without --to"]);
  });
});
