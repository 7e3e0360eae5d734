/**
 * `admin calls show` and `admin calls refund` for calls of tools with a free quota and packages
 * (decision 054): what paid for a call, a call the gateway refused, and a refund that gives a call's
 * prepaid units back to their lots.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { lotMoves, unitLots, usageRecords, users } from "../../db/schema/index";
import { adminCli } from "../../testing/admin-cli";
import { createUserWithKey } from "../../testing/keys";
import { tempDataDir } from "../../testing/temp-dir";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { verifyLedger } from "../ledger/verify";

const START = "2026-03-10T08:00:00.000Z";
let t: TestApp;
let upstream: http.Server;
beforeAll(async () => {
  upstream = http.createServer((req, res) => req.resume().on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}")));
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const catalog = path.join(tempDataDir("calls-prepaid-"), "tools.json");
  const starter = { id: "starter", name: "Starter", units: 10, price: "0.05", validDays: 30 };
  const tool = (id: string, extra: object) => ({ id, name: id, description: "d", category: "test", price: "0.01", rateLimitPerMinute: 100_000, ...extra });
  fs.writeFileSync(
    catalog,
    JSON.stringify({
      tools: [
        tool("ocr", { handler: { type: "builtin", name: "echo" }, freeQuota: { units: 2, period: "month" }, packages: [starter] }),
        tool("chars", { price: "0.001", unit: "character", handler: { type: "builtin", name: "pinyin" }, freeQuota: { units: 3, period: "month" }, packages: [starter] }),
        tool("remote", { handler: { type: "http", url: base, startEarly: false }, packages: [starter] }),
      ],
    }),
  );
  t = await createTestApp({ TOOLS_CATALOG: catalog });
});
afterAll(async () => {
  await t.close();
  upstream.closeAllConnections();
  upstream.close();
});

const cli = (...argv: string[]) => adminCli(t)(...argv);
const call = async (secret: string, toolId: string, payload: unknown = { hi: 1 }) => {
  const res = await t.app.inject({ method: "POST", url: `/v1/tools/${toolId}`, payload: payload as object, headers: { authorization: `Bearer ${secret}` } });
  return { status: res.statusCode, requestId: res.headers["x-request-id"] as string, body: res.body };
};
async function buy(user: { headers: Record<string, string>; userId: number }, toolId: string) {
  const res = await t.app.inject({
    method: "POST",
    url: "/api/v1/console/packages/purchase",
    headers: { ...user.headers, "idempotency-key": `buy-${toolId}-${user.userId}` },
    payload: { toolId, packageId: "starter" },
  });
  expect(res.statusCode).toBe(201);
}
const lotsOf = (userId: number) => t.database.db.select().from(unitLots).where(eq(unitLots.userId, userId)).orderBy(unitLots.id);
const balanceOf = async (userId: number) => (await t.database.db.select().from(users).where(eq(users.id, userId)))[0]!.balance;
const field = (out: string, name: string) => out.split("\n").find((line) => line.startsWith(`${name}  `))?.slice(name.length).trim();
async function ledgerIsExact() {
  expect(await cli("ledger", "verify")).toMatchObject({ code: 0 });
  expect((await verifyLedger(t.database.db)).problems).toEqual([]);
}

beforeEach(() => t.clock.set(START));

describe("tollgate admin calls show, for a tool with prepaid units", () => {
  it("names the free quota and package that paid for a call, and the balance's part", async () => {
    const { user, key } = await createUserWithKey(t, { balance: "1" });
    await buy(user, "chars");
    // Seven characters: the month's 3 free, then the package's 4.
    const byLots = await call(key.secret, "chars", { text: "汉字汉字汉字汉" });
    expect(byLots.status).toBe(200);
    const shown = await cli("calls", "show", byLots.requestId);
    expect(shown.code).toBe(0);
    expect(field(shown.out, "paid by")).toBe("free 3/3 in 2026-03 ×3 + package Starter, expires 2026-04-09 ×4");
    expect(field(shown.out, "amount")).toBe("0.00");
    const document = JSON.parse((await cli("calls", "show", byLots.requestId, "--json")).out);
    expect(document.paidBy.map((p: { source: string; name: string | null; units: number }) => [p.source, p.name, p.units])).toEqual([
      ["free", null, 3],
      ["package", "Starter", 4],
    ]);
    // The package's 6 left, then the balance for 2.
    const mixed = await call(key.secret, "chars", { text: "汉字汉字汉字汉字" });
    expect(field((await cli("calls", "show", mixed.requestId)).out, "paid by")).toBe("package Starter, expires 2026-04-09 ×6 + balance ×2");
  });

  it("says a refused call never reached a tool's upstream, or that a built-in tool's answer was dropped, and that nothing paid", async () => {
    const { key } = await createUserWithKey(t, { balance: "1", key: { whenPrepaidRunsOut: "stop" } });
    for (let i = 0; i < 2; i++) expect((await call(key.secret, "ocr")).status).toBe(200);
    const refused = await call(key.secret, "ocr");
    expect(refused.status).toBe(402);
    await t.app.callLog.drain();
    const shown = await cli("calls", "show", refused.requestId);
    expect(shown.code).toBe(0);
    expect(field(shown.out, "outcome")).toBe("prepaid_exhausted (HTTP 402)");
    expect(field(shown.out, "upstream")).toBe(
      "none (a built-in tool): it ran before the charge, which was refused (prepaid_exhausted); its answer (200) was dropped and the caller got none of it",
    );
    expect(shown.out).not.toMatch(/^upstream +HTTP 200$/m);
    expect(field(shown.out, "paid by")).toBe("nothing: the call was never charged");
    expect(JSON.parse((await cli("calls", "show", refused.requestId, "--json")).out).log).toMatchObject({ refused: true, upstreamStatus: 200 });

    // An HTTP tool refused before it was called.
    const closed = await call(key.secret, "remote");
    expect(closed.status).toBe(402);
    await t.app.callLog.drain();
    expect(field((await cli("calls", "show", closed.requestId)).out, "upstream")).toBe("never reached: the gateway refused the call (prepaid_exhausted) before the tool was called");
  });
});

describe("tollgate admin calls refund, for a call paid with prepaid units", () => {
  it("gives the units back to the lots they came from, once, and moves no money", async () => {
    const { user, key } = await createUserWithKey(t, { balance: "1" });
    await buy(user, "chars");
    const paid = await call(key.secret, "chars", { text: "汉字汉字汉字汉" });
    const [free, pack] = [...(await lotsOf(user.userId))].sort((a, b) => (a.source === "free" ? -1 : b.source === "free" ? 1 : 0));
    expect([free!.unitsLeft, pack!.unitsLeft]).toEqual([0, 6]);
    // Given as the user reported it, upper-case: the second refund below, given as written, is still the same call's.
    const refunded = await cli("calls", "refund", paid.requestId.toUpperCase(), "--reason", "garbled text, ticket 12");
    expect(refunded).toMatchObject({
      code: 0,
      out: `refunded 3 units to free quota (lot ${free!.id}) and 4 units to package Starter (lot ${pack!.id}) of user ${user.userId} for call ${paid.requestId}`,
    });
    expect((await lotsOf(user.userId)).map((l) => [l.id, l.unitsLeft]).sort()).toEqual([[free!.id, 3], [pack!.id, 10]].sort());
    expect(await balanceOf(user.userId)).toBe(950_000n);
    const twice = await cli("calls", "refund", paid.requestId, "--reason", "again");
    expect(twice.code).toBe(1);
    expect(twice.err).toMatch(/^not refunded: an operator \(.+\) refunded the call already, \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \+08:00: a call is refunded once$/);
    expect(field((await cli("calls", "show", paid.requestId)).out, "paid by")).toBe("nothing: the call was refunded (its units back to their lots, its money to the balance)");
    // The units are usable again: the same text is paid by them as before.
    const again = await call(key.secret, "chars", { text: "汉字汉字汉字汉" });
    expect(field((await cli("calls", "show", again.requestId)).out, "paid by")).toBe("free 3/3 in 2026-03 ×3 + package Starter, expires 2026-04-09 ×4");
    await ledgerIsExact();
  });

  it("keeps when the call ended, and dates the refund and the units it gives back when the operator refunded it", async () => {
    const { user, key } = await createUserWithKey(t, { balance: "1" });
    await buy(user, "chars");
    // Nine characters at 08:00: the month's 3 free, the package's 6.
    const paid = await call(key.secret, "chars", { text: "汉字汉字汉字汉字汉" });
    expect(paid.status).toBe(200);
    const [before] = await t.database.db.select().from(usageRecords).where(eq(usageRecords.requestId, paid.requestId));
    expect(before!.completedAt).toEqual(new Date(START));
    // Two days later the operator refunds it.
    const refundAt = "2026-03-12T09:30:00.000Z";
    t.clock.set(refundAt);
    expect((await cli("calls", "refund", paid.requestId, "--reason", "ticket 16")).code).toBe(0);

    const [row] = await t.database.db.select().from(usageRecords).where(eq(usageRecords.requestId, paid.requestId));
    expect(row).toMatchObject({ status: "refunded", completedAt: new Date(START), refundedAt: new Date(refundAt), latencyMs: before!.latencyMs });
    const shown = await cli("calls", "show", paid.requestId);
    expect(field(shown.out, "ended")).toMatch(/^2026-03-10 16:00:00 \+08:00, the tool took (under 1|\d+) ms$/);
    expect(field(shown.out, "refunded")).toBe("2026-03-12 17:30:00 +08:00");
    expect(JSON.parse((await cli("calls", "show", paid.requestId, "--json")).out)).toMatchObject({ completedAt: START, refundedAt: refundAt });
    // The units went back to both lots at the refund's time, not the call's.
    const returns = await t.database.db.select().from(lotMoves).where(and(eq(lotMoves.usageId, row!.id), eq(lotMoves.kind, "return")));
    expect(returns.map((m) => [m.units, m.createdAt]).sort()).toEqual([
      [-3, new Date(refundAt)],
      [-6, new Date(refundAt)],
    ]);
    // A call never refunded shows no refund time.
    const kept = await call(key.secret, "chars", { text: "汉" });
    expect(field((await cli("calls", "show", kept.requestId)).out, "refunded")).toBeUndefined();
    expect(JSON.parse((await cli("calls", "show", kept.requestId, "--json")).out).refundedAt).toBeNull();
    await ledgerIsExact();
  });

  it("gives a call's units back once when five operators race to refund it", async () => {
    const { user, key } = await createUserWithKey(t, { balance: "1" });
    await buy(user, "chars");
    const paid = await call(key.secret, "chars", { text: "汉字汉字汉字汉字汉" });
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => cli("calls", "refund", paid.requestId, "--reason", `race ${i}`)));
    expect(results.map((r) => r.code).sort()).toEqual([0, 1, 1, 1, 1]);
    expect((await lotsOf(user.userId)).map((l) => l.unitsLeft).sort()).toEqual([10, 3]);
    expect(await balanceOf(user.userId)).toBe(950_000n);
    await ledgerIsExact();
  });

  it("gives back the balance's part as money and the lots' part as units, in one refund", async () => {
    const { user, key } = await createUserWithKey(t, { balance: "1" });
    // Five characters: the month's 3 free, then 2 from the balance (0.002).
    const paid = await call(key.secret, "chars", { text: "汉字汉字汉" });
    expect(await balanceOf(user.userId)).toBe(998_000n);
    const [free] = await lotsOf(user.userId);
    const refunded = await cli("calls", "refund", paid.requestId, "--reason", "ticket 13");
    expect(refunded.out).toBe(`refunded 0.002 and 3 units to free quota (lot ${free!.id}) of user ${user.userId} for call ${paid.requestId}`);
    expect(await balanceOf(user.userId)).toBe(1_000_000n);
    expect((await lotsOf(user.userId))[0]!.unitsLeft).toBe(3);
    await ledgerIsExact();
  });

  it("refuses, changing nothing, when a lot the call drew from was refunded or has expired", async () => {
    const { user, key } = await createUserWithKey(t, { balance: "1" });
    await buy(user, "ocr");
    // The month's 2 free calls, then two paid by the package.
    for (let i = 0; i < 2; i++) await call(key.secret, "ocr");
    const first = await call(key.secret, "ocr");
    const second = await call(key.secret, "ocr");
    const pack = (await lotsOf(user.userId)).find((l) => l.source === "package")!;
    expect(pack.unitsLeft).toBe(8);
    expect((await cli("packages", "refund", String(pack.id), "--reason", "tool retired")).code).toBe(0);
    const afterLotRefund = await balanceOf(user.userId);
    const refused = await cli("calls", "refund", first.requestId, "--reason", "ticket 14");
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(
      new RegExp(
        `^not refunded: the call was paid with units of package Starter \\(lot ${pack.id}\\), which an operator refunded on .+: units given back to it could never be used, so nothing was refunded\\. Grant the user a package instead`,
      ),
    );
    expect(await balanceOf(user.userId)).toBe(afterLotRefund);

    // A month and more later, the package and the month's free quota have expired.
    const other = await createUserWithKey(t, { balance: "1" });
    await buy(other.user, "ocr");
    for (let i = 0; i < 2; i++) await call(other.key.secret, "ocr");
    const byPackage = await call(other.key.secret, "ocr");
    t.clock.set("2026-04-20T08:00:00.000Z");
    const lotsBefore = await lotsOf(other.user.userId);
    const expired = await cli("calls", "refund", byPackage.requestId, "--reason", "ticket 15");
    expect(expired.code).toBe(1);
    expect(expired.err).toMatch(/^not refunded: the call was paid with units of package Starter \(lot \d+\), which expired on 2026-04-09 16:00:00 \+08:00: units given back/);
    expect(await lotsOf(other.user.userId)).toEqual(lotsBefore);
    expect(JSON.parse((await cli("calls", "show", byPackage.requestId, "--json")).out).status).toBe("succeeded");
    expect(second.status).toBe(200);
    await ledgerIsExact();
  });
});
