import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeys, usageRecords, users } from "../../db/schema/index";
import { adminCli } from "../../testing/admin-cli";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { createUserWithSession } from "../../testing/users";
import { verifyLedger } from "../ledger/verify";
import { chargeBatch } from "../ledger/charges";
import { settleLlmCall } from "../ledger/refunds";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const cli = (...argv: string[]) => adminCli(t)(...argv);

async function chargedCall() {
  const user = await createUserWithSession(t, { balance: "1" });
  const key = await t.app.inject({ method: "POST", url: "/api/v1/console/keys", headers: user.headers, payload: { name: "calls" } });
  const res = await t.app.inject({ method: "POST", url: "/v1/tools/echo", payload: { hi: 1 }, headers: { authorization: `Bearer ${key.json().secret}` } });
  expect(res.statusCode).toBe(200);
  return { user, keyId: key.json().key.id as number, requestId: res.headers["x-request-id"] as string };
}

const balanceOf = async (userId: number) => (await t.database.db.select().from(users).where(eq(users.id, userId)))[0]!.balance;

describe("tollgate admin calls show", () => {
  it("shows a call by its request id with the ledger entries it moved, and says so for an unknown id", async () => {
    const { user, requestId } = await chargedCall();
    const shown = await cli("calls", "show", requestId, "--json");
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.out)).toMatchObject({
      requestId,
      userId: user.userId,
      tool: "echo",
      status: "succeeded",
      httpStatus: 200,
      amount: "0.0001",
      ledger: [{ kind: "charge", method: "echo", amount: "-0.0001", reference: requestId }],
    });
    expect((await cli("calls", "show", requestId)).out).toMatch(/^status +succeeded \(HTTP 200\)$/m);
    expect(await cli("calls", "show", "no-such-call")).toMatchObject({ code: 1 });
  });

  it("says a tool that answered within the millisecond took under 1 ms, not 0 ms", async () => {
    const { requestId } = await chargedCall();
    for (const [latencyMs, took] of [
      [0, "under 1 ms"],
      [3, "3 ms"],
    ] as const) {
      await t.database.db.update(usageRecords).set({ latencyMs }).where(eq(usageRecords.requestId, requestId));
      expect((await cli("calls", "show", requestId)).out).toMatch(new RegExp(`^ended +.+, the tool took ${took}$`, "m"));
    }
  });
});

describe("tollgate admin calls, given a request id as a user may report it", () => {
  it("finds and refunds a call by its id in upper case or with spaces around it", async () => {
    const { user, requestId } = await chargedCall();
    for (const given of [requestId.toUpperCase(), ` ${requestId}\n`]) {
      const shown = await cli("calls", "show", given, "--json");
      expect([JSON.stringify(given), shown.code, shown.err]).toEqual([JSON.stringify(given), 0, ""]);
      expect(JSON.parse(shown.out)).toMatchObject({ requestId, userId: user.userId });
    }
    const refunded = await cli("calls", "refund", requestId.toUpperCase(), "--reason", "ticket 5");
    expect([refunded.code, refunded.out]).toEqual([0, `refunded 0.0001 to user ${user.userId} for call ${requestId}`]);
    expect(await balanceOf(user.userId)).toBe(1_000_000n);
  });
});

describe("tollgate admin calls show, for an LLM call", () => {
  it("shows the model, the tokens in and out with the amount of each, and who counted them", async () => {
    const user = await createUserWithSession(t, { balance: "1" });
    const key = await t.app.inject({ method: "POST", url: "/api/v1/console/keys", headers: user.headers, payload: { name: "llm" } });
    const payer = { userId: user.userId, apiKeyId: key.json().key.id as number };
    const at = t.clock.now();
    const [held] = await chargeBatch(t.database.db, [{ ...payer, toolId: "llm", units: 10_000, amount: 10_000n, requestId: "llm-call-1", at }]);
    if (!held?.ok) throw new Error("the hold was refused");
    const settlement = { ...payer, usageId: held.usageId, amount: 10_000n - 7004n, requestId: "llm-call-1", at, finalStatus: "succeeded" as const, units: 7004, httpStatus: 200, latencyMs: 9 };
    const tokens = { model: "tg-large", inputTokens: 1234, cachedInputTokens: 1000, outputTokens: 567, inputAmount: 468n, cachedInputAmount: 2000n, outputAmount: 4536n, origin: "counted" as const };
    expect(await settleLlmCall(t.database.db, settlement, tokens)).toBe(true);
    const shown = await cli("calls", "show", "llm-call-1", "--json");
    expect(JSON.parse(shown.out)).toMatchObject({
      amount: "0.007004",
      llm: { model: "tg-large", inputTokens: 1234, cachedInputTokens: 1000, outputTokens: 567, inputAmount: "0.002468", cachedInputAmount: "0.002", outputAmount: "0.004536", origin: "counted" },
    });
    const text = (await cli("calls", "show", "llm-call-1")).out;
    expect(text).toMatch(/^model +tg-large$/m);
    expect(text).toMatch(/^tokens +1234 in \(1000 cached\) 0\.002468, 567 out 0\.004536, counted$/m);
    expect(JSON.parse((await cli("calls", "show", (await chargedCall()).requestId, "--json")).out).llm).toBeNull();
  });
});

describe("tollgate admin calls refund", () => {
  it("gives a charged call's cost back once, with the reason the user sees, and takes it off the key's spend", async () => {
    const { user, keyId, requestId } = await chargedCall();
    expect((await cli("calls", "refund", requestId)).code).toBe(64);
    const refunded = await cli("calls", "refund", requestId, "--reason", "garbage answer, ticket 77");
    expect(refunded).toMatchObject({ code: 0, out: `refunded 0.0001 to user ${user.userId} for call ${requestId}` });
    expect(await balanceOf(user.userId)).toBe(1_000_000n);
    const [key] = await t.database.db.select().from(apiKeys).where(eq(apiKeys.id, keyId));
    expect(key!.spent).toBe(0n);
    const shown = JSON.parse((await cli("calls", "show", requestId, "--json")).out);
    // The call cost what it was charged, as billing details show it; the refund is beside it.
    expect(shown).toMatchObject({ status: "refunded", amount: "0.0001", operatorRefund: "0.0001" });
    const text = (await cli("calls", "show", requestId)).out;
    expect(text).toMatch(/^amount +0\.0001$/m);
    expect(text).toMatch(/^refunded +2026-\S+ \S+ \+08:00, 0\.0001 back to the balance by an operator$/m);
    expect(shown.ledger[1]).toMatchObject({ kind: "refund", method: "operator", amount: "0.0001", reference: `garbage answer, ticket 77 (call ${requestId})` });

    const again = await cli("calls", "refund", requestId, "--reason", "twice");
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/^not refunded: an operator refunded the call already \(entry \d+, 2026-03-01 16:00:00 \+08:00, "garbage answer, ticket 77 \(call \S+\)"\): a call is refunded once$/);
    expect(await cli("calls", "refund", "no-such-call", "--reason", "x")).toMatchObject({
      code: 1,
      err: 'not refunded: no call has request id "no-such-call" (the call log keeps calls 90 days)',
    });
    expect(await balanceOf(user.userId)).toBe(1_000_000n);
    expect((await verifyLedger(t.database.db)).problems).toEqual([]);
  });

  it("refunds once when ten operators race to refund the same call", async () => {
    const { user, requestId } = await chargedCall();
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => cli("calls", "refund", requestId, "--reason", `race ${i}`)));
    expect(results.filter((r) => r.code === 0)).toHaveLength(1);
    expect(results.filter((r) => r.code === 1)).toHaveLength(9);
    expect(await balanceOf(user.userId)).toBe(1_000_000n);
    expect((await verifyLedger(t.database.db)).problems).toEqual([]);
  });

  it("refuses a call that was never charged, saying how it ended", async () => {
    const user = await createUserWithSession(t, { balance: "0" });
    const key = await t.app.inject({ method: "POST", url: "/api/v1/console/keys", headers: user.headers, payload: { name: "broke" } });
    const res = await t.app.inject({ method: "POST", url: "/v1/tools/echo", payload: {}, headers: { authorization: `Bearer ${key.json().secret}` } });
    expect(res.statusCode).toBe(402);
    await t.app.callLog.drain();
    const refused = await cli("calls", "refund", res.headers["x-request-id"] as string, "--reason", "goodwill");
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/^not refunded: the call was never charged: it ended \S+ \(HTTP 402, insufficient_balance\)$/);
    expect(await balanceOf(user.userId)).toBe(0n);
    expect((await verifyLedger(t.database.db)).problems).toEqual([]);
  });

  it("refuses a call still running: its own settlement will say what it costs", async () => {
    const user = await createUserWithSession(t, { balance: "1" });
    const key = await t.app.inject({ method: "POST", url: "/api/v1/console/keys", headers: user.headers, payload: { name: "pending" } });
    const at = t.clock.now();
    await chargeBatch(t.database.db, [{ userId: user.userId, apiKeyId: key.json().key.id, toolId: "echo", units: 1, amount: 10_000n, requestId: "still-running-1", at }]);
    expect(await cli("calls", "refund", "still-running-1", "--reason", "early")).toMatchObject({ code: 1, err: "not refunded: the call is still running: refund it once it has ended" });
    expect(await balanceOf(user.userId)).toBe(990_000n);
  });
});
