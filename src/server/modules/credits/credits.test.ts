import { beijingIso } from "#shared/beijing-time";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatMoney } from "#shared/money";
import { CREDITS_CSV_HEADER, type CreditRow } from "#shared/money-api";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { createUserWithSession, type TestUser } from "../../testing/users";
import { credit, debit } from "../ledger/ledger";

let t: TestApp;
let user: TestUser;
const DAY = 24 * 3600 * 1000;
const start = new Date("2026-02-01T00:00:00Z");

/** 30 credits: credit i (amount i.01) at noon UTC on 1 Feb + i days, the last three at the same instant, plus a charge and another user's credit. */
beforeAll(async () => {
  t = await createTestApp();
  user = await createUserWithSession(t);
  const other = await createUserWithSession(t);
  for (let i = 1; i <= 30; i++) {
    const at = new Date(start.getTime() + Math.min(i, 28) * DAY + 12 * 3600 * 1000);
    await credit(t.database.db, {
      userId: user.userId,
      amount: BigInt(i) * 1_000_000n + 10_000n,
      kind: i % 2 ? "redemption" : "adjustment",
      method: i % 2 ? "redemption" : "operator",
      reference: `ref-${i}`,
      idempotencyKey: `k${i}`,
      at,
    });
  }
  await debit(t.database.db, { userId: user.userId, amount: 1n, kind: "charge", method: "gateway", reference: "call", idempotencyKey: "d", at: start });
  await credit(t.database.db, { userId: other.userId, amount: 5n, kind: "topup", method: "alipay", reference: "not-yours", idempotencyKey: "o", at: start });
});
afterAll(() => t.close());

const get = (url: string, who: TestUser | null = user) => t.app.inject({ method: "GET", url, headers: who ? who.headers : {} });

async function allPages(query: string, limit: number): Promise<{ rows: CreditRow[]; pages: number; totals: Set<string> }> {
  const rows: CreditRow[] = [];
  const totals = new Set<string>();
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await get(`/api/v1/console/credits?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ""}`);
    expect(res.statusCode).toBe(200);
    const page = res.json();
    rows.push(...page.items);
    totals.add(page.total);
    cursor = page.nextCursor;
    pages += 1;
  } while (cursor);
  return { rows, pages, totals };
}

describe("GET /api/v1/console/credits", () => {
  it("lists every credit once, newest first, across keyset pages (also rows sharing a timestamp)", async () => {
    const { rows, pages, totals } = await allPages("", 7);
    expect(pages).toBe(5);
    expect(rows).toHaveLength(30);
    expect(new Set(rows.map((r) => r.id)).size).toBe(30);
    const times = rows.map((r) => Date.parse(r.time));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(rows.map((r) => r.reference).sort()).toEqual(Array.from({ length: 30 }, (_, i) => `ref-${i + 1}`).sort());
    expect(rows.some((r) => r.reference === "call" || r.reference === "not-yours")).toBe(false);
    // 1.01 + 2.01 + … + 30.01
    expect([...totals]).toEqual(["465.30"]);
    expect(rows.find((r) => r.reference === "ref-3")).toEqual({
      id: expect.any(String),
      time: "2026-02-04T12:00:00.000Z",
      method: "redemption",
      amount: "3.01",
      status: "succeeded",
      reference: "ref-3",
    });
    expect(rows.find((r) => r.reference === "ref-4")!.method).toBe("operator");
  });

  it("filters by a time range, with the total of the filter", async () => {
    const from = "2026-02-05T00:00:00.000Z";
    const to = "2026-02-08T00:00:00.000Z";
    const { rows, totals } = await allPages(`&from=${from}&to=${to}`, 2);
    expect(rows.map((r) => r.reference)).toEqual(["ref-6", "ref-5", "ref-4"]);
    expect([...totals]).toEqual([formatMoney(4_010_000n + 5_010_000n + 6_010_000n)]);
  });

  it("refuses an inverted range, a forged cursor, and visitors", async () => {
    expect((await get("/api/v1/console/credits?from=2026-02-08T00:00:00Z&to=2026-02-05T00:00:00Z")).statusCode).toBe(400);
    expect((await get("/api/v1/console/credits?cursor=bm9wZQ")).statusCode).toBe(400);
    const forged = Buffer.from(JSON.stringify({ at: "9999999999999999999", key: "l1" })).toString("base64url");
    expect((await get(`/api/v1/console/credits?cursor=${forged}`)).json().message).toBe("the cursor is not valid: start again from the first page");
    expect((await get("/api/v1/console/credits?to=0000-01-01T00:00:00Z")).json().message).toBe("to must be a time in the years 1 to 9999");
    expect((await get("/api/v1/console/credits?from=yesterday")).statusCode).toBe(400);
    expect((await get("/api/v1/console/credits?from=2026-11-30")).json()).toEqual({
      code: "validation_failed",
      message: "from: must be a date-time such as 2026-11-30T00:00:00+08:00",
    });
    expect((await get("/api/v1/console/credits", null)).statusCode).toBe(401);
  });

  it("refuses a parameter it does not take, naming it, rather than list every credit as if the filter applied", async () => {
    const typo = await get("/api/v1/console/credits?form=2026-02-05T00:00:00Z");
    expect([typo.statusCode, typo.json()]).toEqual([400, { code: "validation_failed", message: "the query string does not take the parameter form" }]);
    expect((await get("/api/v1/console/credits?method=alipay&status=succeeded")).json().message).toBe("the query string does not take the parameters method, status");
    const csv = await get("/api/v1/console/credits.csv?from=2026-02-05T00:00:00Z&limit=5");
    expect([csv.statusCode, csv.json()]).toEqual([400, { code: "validation_failed", message: "the query string does not take the parameter limit" }]);
    // The old path sends the query on, and the new one judges it.
    expect((await get("/api/v1/console/charges?form=x")).headers.location).toBe("/api/v1/console/credits?form=x");
    const page = await get("/api/v1/console/credits?from=2026-02-05T00:00:00Z&to=2026-02-08T00:00:00Z&limit=5");
    expect([page.statusCode, page.json().items.map((r: CreditRow) => r.reference)]).toEqual([200, ["ref-6", "ref-5", "ref-4"]]);
    const rangeCsv = await get("/api/v1/console/credits.csv?from=2026-02-05T00:00:00Z&to=2026-02-08T00:00:00Z");
    expect([rangeCsv.statusCode, rangeCsv.body.trimEnd().split("\r\n").length]).toEqual([200, 4]);
  });
});

describe("an operator's debit", () => {
  it("is listed with the credits as a negative amount with its reason, and the total is net of it", async () => {
    const debited = await createUserWithSession(t);
    const at = new Date("2026-03-05T04:00:00Z");
    await credit(t.database.db, { userId: debited.userId, amount: 2_000_000n, kind: "topup", method: "alipay", reference: "order-1", idempotencyKey: "debit-test-top-up", at });
    await debit(t.database.db, { userId: debited.userId, amount: 500_000n, kind: "adjustment", method: "operator", reference: "manual fee", idempotencyKey: "operator:debit-test", at: new Date(at.getTime() + 1000) });
    const page = (await get("/api/v1/console/credits", debited)).json();
    expect(page.items.map((r: CreditRow) => [r.method, r.amount, r.reference])).toEqual([
      ["operator", "-0.50", "manual fee"],
      ["alipay", "2.00", "order-1"],
    ]);
    expect(page.total).toBe("1.50");
    expect((await get("/api/v1/console/credits.csv", debited)).body).toContain(",operator,-0.50,succeeded,manual fee\r\n");
  });
});

describe("GET /api/v1/console/credits.csv", () => {
  it("downloads exactly the filtered rows as CSV", async () => {
    const query = "from=2026-02-10T00:00:00.000Z&to=2026-03-10T00:00:00.000Z";
    const res = await get(`/api/v1/console/credits.csv?${query}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(res.headers["content-disposition"]).toMatch(/^attachment; filename="credits-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = res.body.trimEnd().split("\r\n");
    expect(lines[0]).toBe(CREDITS_CSV_HEADER.join(","));
    const { rows } = await allPages(`&${query}`, 100);
    expect(lines.slice(1)).toEqual(rows.map((r) => [beijingIso(r.time), r.method, r.amount, r.status, r.reference].join(",")));
    expect(lines).toHaveLength(1 + 22);
  });

  it("needs a session", async () => {
    expect((await get("/api/v1/console/credits.csv", null)).statusCode).toBe(401);
  });
});

describe("the paths before the rename, /api/v1/console/charges(.csv)", () => {
  it("send the caller on to the credits, query and all", async () => {
    const list = await get("/api/v1/console/charges?limit=5");
    expect(list.statusCode).toBe(308);
    expect(list.headers.location).toBe("/api/v1/console/credits?limit=5");
    const csv = await get("/api/v1/console/charges.csv");
    expect(csv.statusCode).toBe(308);
    expect(csv.headers.location).toBe("/api/v1/console/credits.csv");
  });

  it("still need a session", async () => {
    expect((await get("/api/v1/console/charges", null)).statusCode).toBe(401);
  });
});
