import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { usageRecords } from "../../db/schema/index";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { createUserWithSession, type TestUser } from "../../testing/users";

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ PUBLIC_URL: "https://api.example.com/" });
});
afterAll(() => t.close());

async function newKey(user: TestUser): Promise<{ id: number; secret: string }> {
  const res = await t.app.inject({ method: "POST", url: "/api/v1/console/keys", headers: user.headers, payload: { name: "usage" } });
  expect(res.statusCode).toBe(201);
  return { id: res.json().key.id, secret: res.json().secret };
}

let calls = 0;
/** A finished call as the gateway records it. */
async function recordCall(user: TestUser, keyId: number, amount: bigint, at: string, status: "succeeded" | "refunded" | "pending" = "succeeded") {
  calls += 1;
  await t.database.db.insert(usageRecords).values({
    userId: user.userId,
    apiKeyId: keyId,
    toolId: "echo",
    units: 1,
    amount,
    status,
    requestId: `usage-test-${calls}`,
    createdAt: new Date(at),
  });
}

describe("GET /api/v1/console/referrals", () => {
  it("gives the user's link under PUBLIC_URL and counts only users who signed up through it", async () => {
    const referrer = await createUserWithSession(t);
    const other = await createUserWithSession(t);
    await createUserWithSession(t, { referredBy: referrer.userId });
    await createUserWithSession(t, { referredBy: referrer.userId });
    await createUserWithSession(t, { referredBy: other.userId });

    const res = await t.app.inject({ url: "/api/v1/console/referrals", headers: referrer.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      code: referrer.referralCode,
      link: `https://api.example.com/?r=${encodeURIComponent(referrer.referralCode)}`,
      signups: 2,
    });
    const fresh = await createUserWithSession(t);
    expect((await t.app.inject({ url: "/api/v1/console/referrals", headers: fresh.headers })).json().signups).toBe(0);
    expect((await t.app.inject({ url: "/api/v1/console/referrals" })).statusCode).toBe(401);
  });
});

describe("GET /api/v1/console/usage", () => {
  it("has every day of the range with zeros before any call", async () => {
    const user = await createUserWithSession(t);
    const res = await t.app.inject({ url: "/api/v1/console/usage?days=30", headers: user.headers });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.days).toHaveLength(30);
    expect(body.days[0]).toEqual({ date: "2026-01-31", calls: 0, spend: "0.00" });
    expect(body.days[29]).toEqual({ date: "2026-03-01", calls: 0, spend: "0.00" });
    expect(body.totals).toEqual({ calls: 0, spend: "0.00" });
  });

  it("counts the user's successful calls per day in the reader's time zone, and nobody else's", async () => {
    const user = await createUserWithSession(t);
    const other = await createUserWithSession(t);
    const key = await newKey(user);
    const otherKey = await newKey(other);
    await recordCall(user, key.id, 1_500n, "2026-02-28T10:00:00Z");
    await recordCall(user, key.id, 2_500n, "2026-02-28T15:30:00Z"); // 23:30 in China: still the 28th there
    await recordCall(user, key.id, 100_000n, "2026-02-28T16:30:00Z"); // 00:30 on March 1st in China
    await recordCall(user, key.id, 7_000n, "2026-01-01T00:00:00Z"); // before the range
    await recordCall(user, key.id, 50_000n, "2026-02-28T11:00:00Z", "refunded"); // failed: money given back
    await recordCall(user, key.id, 60_000n, "2026-02-28T12:00:00Z", "pending"); // still running
    await recordCall(other, otherKey.id, 9_000n, "2026-02-28T10:00:00Z");

    const utc = (await t.app.inject({ url: "/api/v1/console/usage?tzOffset=0", headers: user.headers })).json();
    expect(utc.days).toHaveLength(30);
    expect(utc.days.at(-2)).toEqual({ date: "2026-02-28", calls: 3, spend: "0.104" });
    expect(utc.days.at(-1)).toEqual({ date: "2026-03-01", calls: 0, spend: "0.00" });
    expect(utc.totals).toEqual({ calls: 3, spend: "0.104" });

    const china = (await t.app.inject({ url: "/api/v1/console/usage?days=7&tzOffset=480", headers: user.headers })).json();
    expect(china.days.map((d: { date: string }) => d.date)).toEqual([
      "2026-02-23",
      "2026-02-24",
      "2026-02-25",
      "2026-02-26",
      "2026-02-27",
      "2026-02-28",
      "2026-03-01",
    ]);
    expect(china.days.at(-2)).toEqual({ date: "2026-02-28", calls: 2, spend: "0.004" });
    expect(china.days.at(-1)).toEqual({ date: "2026-03-01", calls: 1, spend: "0.10" });
    // Without a zone, days are Beijing's, as every other date the API gives.
    const byDefault = (await t.app.inject({ url: "/api/v1/console/usage?days=7", headers: user.headers })).json();
    expect(byDefault).toEqual(china);
  });

  it("shows a call made through the gateway", async () => {
    const user = await createUserWithSession(t, { balance: "1" });
    const key = await newKey(user);
    const res = await t.app.inject({
      method: "POST",
      url: "/v1/tools/echo",
      payload: { hello: "usage" },
      headers: { authorization: `Bearer ${key.secret}` },
    });
    expect(res.statusCode).toBe(200);
    const cost = res.headers["x-tollgate-cost"];
    await expect
      .poll(async () => (await t.app.inject({ url: "/api/v1/console/usage", headers: user.headers })).json().totals)
      .toEqual({ calls: 1, spend: cost });
  });

  it("refuses a range it does not serve", async () => {
    const user = await createUserWithSession(t);
    for (const query of ["days=0", "days=91", "days=x", "tzOffset=900"]) {
      const res = await t.app.inject({ url: `/api/v1/console/usage?${query}`, headers: user.headers });
      expect(res.statusCode, query).toBe(400);
    }
    expect((await t.app.inject({ url: "/api/v1/console/usage" })).statusCode).toBe(401);
  });

  it("refuses a parameter it does not take, naming it, rather than answer for 30 days as if it were heard", async () => {
    const user = await createUserWithSession(t);
    const typo = await t.app.inject({ url: "/api/v1/console/usage?day=7", headers: user.headers });
    expect([typo.statusCode, typo.json()]).toEqual([400, { code: "validation_failed", message: "the query string does not take the parameter day" }]);
    const zone = await t.app.inject({ url: "/api/v1/console/usage?days=7&tz=480", headers: user.headers });
    expect(zone.json().message).toBe("the query string does not take the parameter tz");
    const right = await t.app.inject({ url: "/api/v1/console/usage?days=7&tzOffset=480", headers: user.headers });
    expect([right.statusCode, right.json().days.length]).toEqual([200, 7]);
  });
});
