import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { createUserWithSession, type TestUser } from "../../testing/users";

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
const keys: Record<string, { id: number; secret: string }> = {};

async function newKey(user: TestUser, name: string) {
  const res = await t.app.inject({ method: "POST", url: "/api/v1/console/keys", headers: user.headers, payload: { name } });
  return { id: res.json().key.id as number, secret: res.json().secret as string };
}

const call = (secret: string, toolId: string, payload: object) =>
  t.app.inject({
    method: "POST",
    url: `/v1/tools/${toolId}`,
    payload: JSON.stringify(payload),
    headers: { "content-type": "application/json", authorization: `Bearer ${secret}` },
  });

const billing = (user: TestUser, query = "") => t.app.inject({ url: `/api/v1/console/billing${query}`, headers: user.headers });

beforeAll(async () => {
  t = await createTestApp();
  alice = await createUserWithSession(t, { balance: "10" });
  bob = await createUserWithSession(t, { balance: "10" });
  keys.alicePrimary = await newKey(alice, "primary");
  keys.aliceCi = await newKey(alice, "ci, \"nightly\"");
  keys.bob = await newKey(bob, "bob");
  for (let i = 0; i < 3; i++) {
    expect((await call(keys.alicePrimary.secret, "echo", { i })).statusCode).toBe(200);
    t.clock.advance(60_000);
  }
  expect((await call(keys.aliceCi.secret, "qrcode", { text: "hi" })).statusCode).toBe(200);
  t.clock.advance(60_000);
  expect((await call(keys.aliceCi.secret, "qrcode", {})).statusCode).toBe(400); // refused by the tool: not billed
  expect((await call(keys.bob.secret, "echo", {})).statusCode).toBe(200);
});
afterAll(() => t.close());

describe("GET /api/v1/console/billing", () => {
  it("lists the user's charged calls newest first with key names, and the total", async () => {
    const res = await billing(alice);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.items.map((r: { toolId: string; keyName: string; amount: string; units: number }) => [r.toolId, r.keyName, r.amount, r.units])).toEqual([
      ["qrcode", 'ci, "nightly"', "0.002", 1],
      ["echo", "primary", "0.0001", 1],
      ["echo", "primary", "0.0001", 1],
      ["echo", "primary", "0.0001", 1],
    ]);
    expect(body.total).toEqual({ calls: 4, purchases: 0, amount: "0.0023" });
    expect(body.items[0].requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.nextCursor).toBeNull();
  });

  it("never shows another user's calls", async () => {
    const body = (await billing(bob)).json();
    expect(body.items).toHaveLength(1);
    expect(body.items[0].keyName).toBe("bob");
    expect((await billing(alice, `?keyId=${keys.bob!.id}`)).json().items).toEqual([]);
  });

  it("filters by tool, by key and by date range, with totals for the filter", async () => {
    const byTool = (await billing(alice, "?toolId=qrcode")).json();
    expect(byTool.total).toEqual({ calls: 1, purchases: 0, amount: "0.002" });
    const byKey = (await billing(alice, `?keyId=${keys.alicePrimary!.id}`)).json();
    expect(byKey.total).toEqual({ calls: 3, purchases: 0, amount: "0.0003" });
    const all = (await billing(alice)).json().items;
    const from = encodeURIComponent(all[2].time);
    const to = encodeURIComponent(all[0].time);
    const ranged = (await billing(alice, `?from=${from}&to=${to}`)).json();
    expect(ranged.items.map((r: { id: number }) => r.id)).toEqual([all[1].id, all[2].id]);
  });

  it("pages with a cursor, without gaps or repeats", async () => {
    const first = (await billing(alice, "?limit=3")).json();
    expect(first.items).toHaveLength(3);
    const second = (await billing(alice, `?limit=3&cursor=${first.nextCursor}`)).json();
    expect(second.items).toHaveLength(1);
    expect(second.nextCursor).toBeNull();
    const ids = [...first.items, ...second.items].map((r: { id: number }) => r.id);
    expect(new Set(ids).size).toBe(4);
    expect(second.total).toEqual(first.total);
  });

  it("explains bad input", async () => {
    expect((await billing(alice, "?cursor=garbage")).json().message).toMatch(/cursor is not valid/);
    const backwards = await billing(alice, "?from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z");
    expect(backwards.statusCode).toBe(400);
    expect(backwards.json().message).toMatch(/start of the range must be before its end/);
    expect((await billing(alice, "?limit=1000")).statusCode).toBe(400);
    // Zod's wording ("Invalid ISO datetime", "expected number, received NaN") is for programmers.
    for (const [query, message] of [
      ["?from=2026-11-30", "from: must be a date-time such as 2026-11-30T00:00:00+08:00"],
      ["?to=tomorrow", "to: must be a date-time such as 2026-11-30T00:00:00+08:00"],
      ["?keyId=abc", "keyId: must be a whole number"],
      ["?limit=0", "limit: must be at least 1"],
    ]) {
      expect((await billing(alice, query!)).json(), query).toEqual({ code: "validation_failed", message });
    }
    // Times and cursors the database cannot do arithmetic on are the caller's mistake (400), not a 500.
    const forged = Buffer.from(JSON.stringify({ at: "99999999999999999999", rank: 1, id: 1 })).toString("base64url");
    expect((await billing(alice, `?cursor=${forged}`)).json()).toEqual({ code: "bad_request", message: "the cursor is not valid: start again from the first page" });
    for (const [query, message] of [
      ["?to=0000-01-01T00:00:00Z", "to must be a time in the years 1 to 9999"],
      ["?from=0001-01-01T00:00:00%2B14:00", "from must be a time in the years 1 to 9999"],
      ["?to=9999-12-31T23:59:59-14:00", "to must be a time in the years 1 to 9999"],
    ]) {
      expect((await billing(alice, query!)).json(), query).toEqual({ code: "bad_request", message });
      expect((await t.app.inject({ url: `/api/v1/console/billing.csv${query}`, headers: alice.headers })).statusCode, query).toBe(400);
    }
    // A range from long before anything was billed means "everything until then".
    for (const from of ["1900-01-01T00:00:00Z", "0001-01-01T00:00:00Z"]) {
      expect((await billing(alice, `?from=${from}`)).statusCode, from).toBe(200);
      expect((await t.app.inject({ url: `/api/v1/console/billing.csv?from=${from}`, headers: alice.headers })).statusCode, from).toBe(200);
    }
    expect((await t.app.inject({ url: "/api/v1/console/billing" })).statusCode).toBe(401);
  });

  it("refuses a parameter it does not take, naming it, rather than list every tool's rows as if the filter applied", async () => {
    const typo = await billing(alice, "?toool=qrcode");
    expect([typo.statusCode, typo.json()]).toEqual([400, { code: "validation_failed", message: "the query string does not take the parameter toool" }]);
    // The console page's own address says tool= and key=; the API's names are toolId and keyId.
    expect((await billing(alice, `?tool=qrcode&key=${keys.aliceCi!.id}`)).json().message).toBe("the query string does not take the parameters tool, key");
    expect((await billing(alice, "?toolId=qrcode&=1")).json().message).toBe('the query string does not take the parameter ""');
    const csv = await t.app.inject({ url: "/api/v1/console/billing.csv?toolId=qrcode&limit=3", headers: alice.headers });
    expect([csv.statusCode, csv.json()]).toEqual([400, { code: "validation_failed", message: "the query string does not take the parameter limit" }]);
    const filtered = await billing(alice, `?toolId=qrcode&keyId=${keys.aliceCi!.id}&limit=5`);
    expect([filtered.statusCode, filtered.json().total]).toEqual([200, { calls: 1, purchases: 0, amount: "0.002" }]);
    const filteredCsv = await t.app.inject({ url: "/api/v1/console/billing.csv?toolId=qrcode", headers: alice.headers });
    expect([filteredCsv.statusCode, filteredCsv.body.trim().split("\r\n").length]).toEqual([200, 2]);
  });
});

describe("GET /api/v1/console/billing.csv", () => {
  it("streams the filtered rows as CSV, quoting what needs it", async () => {
    const res = await t.app.inject({ url: "/api/v1/console/billing.csv", headers: alice.headers });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toMatch(/text\/csv/);
    expect(res.headers["content-disposition"]).toMatch(/attachment; filename="billing-\d{4}-\d{2}-\d{2}\.csv"/);
    const lines = res.body.trim().split("\r\n");
    expect(lines[0]).toBe(
      "time,tool,key,units,amount,request_id,model,input_tokens,cached_input_tokens,output_tokens,input_amount,cached_input_amount,output_amount,tokens_origin,paid_by,free_units,package_units,grant_units,balance_units,package_bought",
    );
    expect(lines).toHaveLength(5);
    expect(lines[1]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+08:00,qrcode,"ci, ""nightly""",1,0\.002,[0-9a-f-]{36},{9}balance,0,0,0,1,$/);
    const filtered = await t.app.inject({ url: "/api/v1/console/billing.csv?toolId=echo", headers: alice.headers });
    expect(filtered.body.trim().split("\r\n")).toHaveLength(4);
  });
});
