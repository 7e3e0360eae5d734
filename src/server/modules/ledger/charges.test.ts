import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatMoney, parseMoney } from "#shared/money";
import type { SpendLimitPeriod } from "#shared/spend-period";
import { apiKeys, ledgerEntries, llmUsage, usageRecords, users } from "../../db/schema/index";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { createUserWithSession } from "../../testing/users";
import { chargeBatch, type ChargeItem, type ChargeOutcome } from "./charges";
import { refundAbandonedCalls, refundBatch, settleLlmCall, type RefundItem } from "./refunds";
import { verifyLedger } from "./verify";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

/** A user with `balance` and a key limited to `spendLimit` (none: null) per `period`. */
async function payer(period: SpendLimitPeriod, spendLimit: string | null = "0.05", balance = "0.10") {
  const user = await createUserWithSession(t, { balance });
  const res = await t.app.inject({
    method: "POST",
    url: "/api/v1/console/keys",
    headers: user.headers,
    payload: { name: "twin", spendLimit, spendLimitPeriod: period },
  });
  expect(res.statusCode).toBe(201);
  return { userId: user.userId, apiKeyId: res.json().key.id as number };
}

/**
 * Calls that meet every rule once: a fit, a call past the key's limit, a free call, the first call
 * of a new Beijing day, a call stamped before the key's period (a batch spanning midnight), a call
 * the balance cannot cover, one charged before its tool runs (pending), and the limit again.
 */
const CALLS: [amount: string, at: string, ended: boolean][] = [
  ["0.02", "2026-04-01T02:00:00Z", true],
  ["0.04", "2026-04-01T03:00:00Z", true],
  ["0", "2026-04-01T03:30:00Z", true],
  ["0.03", "2026-04-01T16:30:00Z", true],
  ["0.01", "2026-04-01T15:00:00Z", true],
  ["0.05", "2026-04-01T17:00:00Z", true],
  ["0.01", "2026-04-01T17:10:00Z", false],
  ["0.01", "2026-04-01T17:20:00Z", true],
];

type Call = (typeof CALLS)[number];

function items(who: { userId: number; apiKeyId: number }, prefix: string, calls: Call[] = CALLS): ChargeItem[] {
  return calls.map(([amount, at, ended], i) => ({
    ...who,
    toolId: "echo",
    units: 1,
    amount: parseMoney(amount),
    requestId: `${prefix}-${i}`,
    at: new Date(at),
    ended: ended ? { httpStatus: 200, latencyMs: i, at: new Date(at) } : undefined,
  }));
}

/** What a user and their key end up with, without ids, so two payers can be compared. */
async function state(who: { userId: number; apiKeyId: number }, prefix: string) {
  const db = t.database.db;
  const [user] = await db.select({ balance: users.balance }).from(users).where(eq(users.id, who.userId));
  const [key] = await db.select().from(apiKeys).where(eq(apiKeys.id, who.apiKeyId));
  const entries = await db.select().from(ledgerEntries).where(eq(ledgerEntries.userId, who.userId)).orderBy(ledgerEntries.id);
  const usage = await db.select().from(usageRecords).where(eq(usageRecords.userId, who.userId)).orderBy(usageRecords.id);
  const local = (text: string) => text.replace(prefix, "<call>");
  return {
    balance: formatMoney(user!.balance),
    key: { spent: key!.spent, periodSpent: key!.periodSpent, periodStart: key!.periodStart, lastUsedAt: key!.lastUsedAt },
    ledger: entries.map((e) => [e.kind, e.method, local(e.reference), local(e.idempotencyKey), e.amount, e.balanceAfter, e.createdAt]),
    usage: usage.map((u) => [u.toolId, u.units, u.amount, u.status, u.httpStatus, u.latencyMs, local(u.requestId), u.createdAt, u.completedAt, u.refundedAt]),
  };
}

const withoutIds = (outcomes: ChargeOutcome[]) => outcomes.map((o) => (o.ok ? { ok: true, balance: o.balance } : o));

describe("a call charged alone and the same call in a batch", () => {
  /** Charges `calls` one at a time for one payer and as one batch for its twin; both must end alike. */
  async function chargedBothWays(name: string, twin: () => Promise<{ userId: number; apiKeyId: number }>, calls: Call[] = CALLS) {
    const alone = await twin();
    const batched = await twin();
    const one = [];
    for (const item of items(alone, `alone-${name}`, calls)) one.push(...(await chargeBatch(t.database.db, [item])));
    const all = await chargeBatch(t.database.db, items(batched, `batched-${name}`, calls));
    expect(withoutIds(one)).toEqual(withoutIds(all));
    const end = await state(batched, `batched-${name}`);
    expect(await state(alone, `alone-${name}`)).toEqual(end);
    return { outcomes: all.map((o) => (o.ok ? "ok" : o.reason)), end };
  }
  const limited = "spend_limit_reached";

  for (const period of ["lifetime", "day", "month"] as SpendLimitPeriod[]) {
    it(`meet the same rules and write the same rows (${period} limit)`, async () => {
      const { outcomes } = await chargedBothWays(period, () => payer(period));
      expect(outcomes).toEqual(
        period === "day"
          ? ["ok", limited, "ok", "ok", "ok", "insufficient_balance", "ok", limited]
          : ["ok", limited, "ok", "ok", limited, limited, limited, limited],
      );
    });
  }

  it("meet the same rules for a key without a limit, a hold admitted on the way", async () => {
    const { outcomes, end } = await chargedBothWays("unlimited", () => payer("lifetime", null, "0.20"));
    expect(outcomes).toEqual(["ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok"]);
    expect(end.balance).toBe("0.03");
    expect(end.usage.map((u) => u[3])).toEqual(["succeeded", "succeeded", "succeeded", "succeeded", "succeeded", "succeeded", "pending", "succeeded"]);
  });

  it("a refused call in a new day leaves the key's counted day as it was", async () => {
    const calls: Call[] = [
      ["0.01", "2026-04-01T02:00:00Z", true],
      ["0.02", "2026-04-01T17:00:00Z", true],
    ];
    const { outcomes, end } = await chargedBothWays("refused-new-day", () => payer("day", "0.05", "0.01"), calls);
    expect(outcomes).toEqual(["ok", "insufficient_balance"]);
    expect(end.key).toMatchObject({ spent: parseMoney("0.01"), periodSpent: parseMoney("0.01"), periodStart: new Date("2026-03-31T16:00:00Z") });
  });

  it("lone calls and batches racing on the same users and keys all go through, in one lock order", async () => {
    const first = await payer("lifetime", null, "10");
    const second = await payer("lifetime", null, "10");
    let n = 0;
    const call = (who: { userId: number; apiKeyId: number }): ChargeItem => ({
      ...who,
      toolId: "echo",
      units: 1,
      amount: parseMoney("0.01"),
      requestId: `race-${process.pid}-${++n}`,
      at: t.clock.now(),
      ended: { httpStatus: 200, latencyMs: 1, at: t.clock.now() },
    });
    const racing = Array.from({ length: 60 }, (_, i) =>
      chargeBatch(t.database.db, i % 3 === 0 ? [call(first), call(second)] : [call(i % 3 === 1 ? second : first)]),
    );
    const outcomes = (await Promise.all(racing)).flat();
    expect(outcomes.filter((o) => o.ok)).toHaveLength(80);
    expect((await state(first, "race")).balance).toBe("9.60");
    expect((await state(second, "race")).balance).toBe("9.60");
    expect((await verifyLedger(t.database.db)).problems).toEqual([]);
  });

  it("refuses a charge for a user or key that does not exist, alone and in a batch", async () => {
    const who = await payer("lifetime");
    const [call] = items({ ...who, apiKeyId: 2 ** 40 }, "missing");
    const refusal = (batch: ChargeItem[]) =>
      chargeBatch(t.database.db, batch).then(
        () => "charged",
        (error: Error) => (error.cause instanceof Error ? error.cause : error).message,
      );
    expect(await refusal([call!])).toMatch(/missing user or key/);
    expect(await refusal([call!, { ...call!, requestId: "missing-2" }])).toMatch(/missing user or key/);
    const noUser = { ...call!, userId: 2 ** 40, apiKeyId: who.apiKeyId, requestId: "missing-3" };
    expect(await refusal([noUser])).toMatch(/missing user or key/);
    expect(await refusal([noUser, { ...noUser, requestId: "missing-4" }])).toMatch(/missing user or key/);
    expect((await verifyLedger(t.database.db)).problems).toEqual([]);
  });
});

describe("a call settled alone and the same call in a batch", () => {
  /** Holds taken on a daily-limited key across a Beijing midnight, so the key's counted day moves on between them. */
  const HOLDS: Call[] = [
    ["0.02", "2026-04-01T02:00:00Z", false],
    ["0.01", "2026-04-01T03:00:00Z", false],
    ["0", "2026-04-01T03:30:00Z", false],
    ["0.03", "2026-04-01T17:00:00Z", false],
    ["0.01", "2026-04-01T17:10:00Z", false],
  ];
  /** Per hold: how it ends and how much comes back (all of it for a failed call). */
  const ENDINGS: [RefundItem["finalStatus"], refund: string, units: number, httpStatus: number | null][] = [
    ["refunded", "0.02", 1, 502],
    ["succeeded", "0.004", 6, 200],
    ["refunded", "0", 1, null],
    ["succeeded", "0.01", 20, 200],
    ["refunded", "0.01", 1, null],
  ];

  async function held(who: { userId: number; apiKeyId: number }, prefix: string) {
    const outcomes = await chargeBatch(t.database.db, items(who, prefix, HOLDS));
    return outcomes.map((outcome, i): RefundItem => {
      if (!outcome.ok) throw new Error(`hold ${i} was refused: ${outcome.reason}`);
      const [finalStatus, refund, units, httpStatus] = ENDINGS[i]!;
      return { ...who, usageId: outcome.usageId, amount: parseMoney(refund), requestId: `${prefix}-${i}`, at: new Date("2026-04-01T17:30:00Z"), finalStatus, units, httpStatus, latencyMs: 10 + i };
    });
  }

  it("give back the same money, count the same key spend and write the same rows; a second settlement moves nothing", async () => {
    const alone = await payer("day", "0.05", "0.10");
    const batched = await payer("day", "0.05", "0.10");
    const aloneSettlements = await held(alone, "settle-alone");
    const batchedSettlements = await held(batched, "settle-batched");

    const one = [];
    for (const settlement of aloneSettlements) one.push(...(await refundBatch(t.database.db, [settlement])));
    const all = await refundBatch(t.database.db, batchedSettlements);
    expect(one).toEqual([true, true, true, true, true]);
    expect(all).toEqual(one);
    const end = await state(batched, "settle-batched");
    expect(await state(alone, "settle-alone")).toEqual(end);
    expect(end.balance).toBe("0.074");
    // A failed call ends when it is refunded: both times are the settlement's; a call that succeeded has no refund time.
    const settledAt = new Date("2026-04-01T17:30:00Z");
    expect(end.usage.map((u) => [u[3], u[8], u[9]])).toEqual(ENDINGS.map(([status]) => [status, settledAt, status === "refunded" ? settledAt : null]));
    // The day counted now is the second one: only its holds' refunds come off it.
    expect(end.key).toMatchObject({ spent: parseMoney("0.026"), periodSpent: parseMoney("0.02"), periodStart: new Date("2026-04-01T16:00:00Z") });

    const again = [];
    for (const settlement of aloneSettlements) again.push(...(await refundBatch(t.database.db, [settlement])));
    expect(again).toEqual([false, false, false, false, false]);
    expect(await refundBatch(t.database.db, batchedSettlements)).toEqual(again);
    expect(await state(alone, "settle-alone")).toEqual(end);
    expect(await state(batched, "settle-batched")).toEqual(end);
    expect((await verifyLedger(t.database.db)).problems).toEqual([]);
  });
});

describe("an LLM call's settlement", () => {
  const tokens = { model: "m", inputTokens: 1234, cachedInputTokens: 1000, outputTokens: 567, inputAmount: 468n, cachedInputAmount: 2000n, outputAmount: 4536n, origin: "reported" as const };

  async function hold(who: { userId: number; apiKeyId: number }, requestId: string, at: string) {
    const [outcome] = await chargeBatch(t.database.db, [{ ...who, toolId: "llm", units: 10_000, amount: 10_000n, requestId, at: new Date(at) }]);
    if (!outcome?.ok) throw new Error("the hold was refused");
    const settlement: RefundItem = { ...who, usageId: outcome.usageId, amount: 10_000n - 7004n, requestId, at: new Date(at), finalStatus: "succeeded", units: 7004, httpStatus: 200, latencyMs: 5 };
    return settlement;
  }
  const llmRows = (usageId: number) => t.database.db.select().from(llmUsage).where(eq(llmUsage.usageId, usageId));

  it("gives back what the hold did not cover and writes the tokens with it; settled again, it writes neither", async () => {
    const who = await payer("day", null, "1");
    const settlement = await hold(who, "llm-settled", "2026-04-02T01:00:00Z");
    expect(await settleLlmCall(t.database.db, settlement, tokens)).toBe(true);
    const [usage] = await t.database.db.select().from(usageRecords).where(eq(usageRecords.id, settlement.usageId));
    expect(usage).toMatchObject({ status: "succeeded", amount: 7004n, units: 7004 });
    expect(await llmRows(settlement.usageId)).toEqual([{ usageId: settlement.usageId, ...tokens }]);
    const [after] = await t.database.db.select({ balance: users.balance }).from(users).where(eq(users.id, who.userId));
    expect(after!.balance).toBe(parseMoney("1") - 7004n);

    expect(await settleLlmCall(t.database.db, settlement, tokens)).toBe(false);
    expect(await llmRows(settlement.usageId)).toHaveLength(1);
    const [again] = await t.database.db.select({ balance: users.balance }).from(users).where(eq(users.id, who.userId));
    expect(again!.balance).toBe(after!.balance);
    expect((await verifyLedger(t.database.db)).problems).toEqual([]);
  });

  it("writes no tokens for a call the abandoned-call sweep refunded first", async () => {
    const who = await payer("day", null, "1");
    const settlement = await hold(who, "llm-swept", "2020-01-01T00:00:00Z");
    expect((await refundAbandonedCalls(t.database.db, { olderThan: new Date("2020-01-02T00:00:00Z"), now: new Date("2020-01-02T00:00:00Z") })).calls).toBeGreaterThanOrEqual(1);
    expect(await settleLlmCall(t.database.db, settlement, tokens)).toBe(false);
    expect(await llmRows(settlement.usageId)).toEqual([]);
    const [after] = await t.database.db.select({ balance: users.balance }).from(users).where(eq(users.id, who.userId));
    expect(after!.balance).toBe(parseMoney("1"));
  });
});
