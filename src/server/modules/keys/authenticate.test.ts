import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeys } from "../../db/schema/index";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { createUserWithSession, type TestUser } from "../../testing/users";
import { authenticateApiKey } from "./authenticate";

let t: TestApp;
let owner: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  owner = await createUserWithSession(t, { balance: "3.50" });
});
afterAll(() => t.close());

async function newKey(body: object = {}): Promise<{ id: number; secret: string }> {
  const res = await t.app.inject({
    method: "POST",
    url: "/api/v1/console/keys",
    payload: { name: "gateway test", ...body },
    headers: owner.headers,
  });
  expect(res.statusCode).toBe(201);
  return { id: res.json().key.id, secret: res.json().secret };
}

const patch = (id: number, body: object) =>
  t.app.inject({ method: "PATCH", url: `/api/v1/console/keys/${id}`, payload: body, headers: owner.headers });

/** What the gateway's charges have added up to on the key. */
const spend = (id: number, micros: bigint) => t.database.db.update(apiKeys).set({ spent: micros }).where(eq(apiKeys.id, id));

const check = (secret: string, ip = "203.0.113.9", tool = "echo") => authenticateApiKey(t.database.db, secret, ip, tool, t.clock.now());

describe("authenticateApiKey", () => {
  it("accepts a good key and returns it with its owner", async () => {
    const { id, secret } = await newKey();
    const result = await check(secret);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.key.id).toBe(id);
    expect(result.user.id).toBe(owner.userId);
    expect(result.user.balance).toBe(3_500_000n);
  });

  it("refuses an unknown key, a malformed one and a deleted one as unknown", async () => {
    const { id, secret } = await newKey();
    const otherLast = secret.endsWith("A") ? "B" : "A";
    expect(await check(`${secret.slice(0, -1)}${otherLast}`)).toEqual({ ok: false, reason: "unknown" });
    expect(await check("not-a-key")).toEqual({ ok: false, reason: "unknown" });
    expect(await check("")).toEqual({ ok: false, reason: "unknown" });
    expect((await check(secret)).ok).toBe(true);
    await t.app.inject({ method: "DELETE", url: `/api/v1/console/keys/${id}`, headers: owner.headers });
    expect(await check(secret)).toEqual({ ok: false, reason: "unknown" });
  });

  it("refuses a disabled key at once, and accepts it again once enabled", async () => {
    const { id, secret } = await newKey();
    await patch(id, { enabled: false });
    expect(await check(secret)).toEqual({ ok: false, reason: "disabled" });
    await patch(id, { enabled: true });
    expect((await check(secret)).ok).toBe(true);
  });

  it("refuses an expired key", async () => {
    const expiresAt = new Date(t.clock.now().getTime() + 60_000).toISOString();
    const { secret } = await newKey({ expiresAt });
    expect((await check(secret)).ok).toBe(true);
    t.clock.advance(60_000);
    expect(await check(secret)).toEqual({ ok: false, reason: "expired" });
  });

  it("refuses a client outside the IP allowlist, for IPv4 and IPv6 addresses and ranges", async () => {
    const { secret } = await newKey({ ipAllowlist: ["10.1.0.0/16", "2001:db8:abcd::/48", "198.51.100.7"] });
    for (const ip of ["10.1.2.3", "::ffff:10.1.200.4", "2001:db8:abcd:12::1", "198.51.100.7"]) {
      expect((await check(secret, ip)).ok, ip).toBe(true);
    }
    for (const ip of ["10.2.0.1", "198.51.100.8", "2001:db8:abce::1", "::1", "garbage"]) {
      expect(await check(secret, ip), ip).toEqual({ ok: false, reason: "ip_not_allowed" });
    }
  });

  it("refuses a tool outside the key's allowed tools; no list allows every tool", async () => {
    const { id, secret } = await newKey({ allowedTools: ["echo", "pinyin"] });
    expect((await check(secret, "203.0.113.9", "pinyin")).ok).toBe(true);
    expect(await check(secret, "203.0.113.9", "qrcode")).toEqual({ ok: false, reason: "tool_not_allowed" });
    await patch(id, { allowedTools: [] });
    expect((await check(secret, "203.0.113.9", "qrcode")).ok).toBe(true);
  });

  it("refuses a key that has spent its limit, and accepts it again when the limit is raised", async () => {
    const { id, secret } = await newKey({ spendLimit: "0.03" });
    await spend(id, 29_999n);
    expect((await check(secret)).ok).toBe(true);
    await spend(id, 30_000n);
    expect(await check(secret)).toEqual({ ok: false, reason: "spend_limit_reached" });
    await patch(id, { spendLimit: "1" });
    expect((await check(secret)).ok).toBe(true);
    await patch(id, { spendLimit: null });
    await spend(id, 5_000_000n);
    expect((await check(secret)).ok).toBe(true);
  });

  it("checks in the documented order when several reasons apply", async () => {
    const { id, secret } = await newKey({ ipAllowlist: ["10.0.0.1"], allowedTools: ["echo"], spendLimit: "0.01" });
    await spend(id, 10_000n);
    expect((await check(secret, "10.0.0.2", "qrcode")).ok).toBe(false);
    expect(await check(secret, "10.0.0.2", "qrcode")).toEqual({ ok: false, reason: "ip_not_allowed" });
    expect(await check(secret, "10.0.0.1", "qrcode")).toEqual({ ok: false, reason: "tool_not_allowed" });
    expect(await check(secret, "10.0.0.1", "echo")).toEqual({ ok: false, reason: "spend_limit_reached" });
    await patch(id, { enabled: false });
    expect(await check(secret, "10.0.0.2", "qrcode")).toEqual({ ok: false, reason: "disabled" });
  });
});
