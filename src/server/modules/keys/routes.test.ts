import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { createUserWithSession, type TestUser } from "../../testing/users";

let t: TestApp;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  t = await createTestApp({ API_KEYS_MAX_PER_USER: "3" });
  alice = await createUserWithSession(t);
  bob = await createUserWithSession(t);
});
afterAll(() => t.close());

const call = (user: TestUser | null, method: "GET" | "POST" | "PATCH" | "DELETE", url: string, payload?: object) =>
  t.app.inject({ method, url: `/api/v1/console/keys${url}`, payload, headers: user ? user.headers : {} });

async function createKey(user: TestUser, body: object = { name: "build server" }) {
  const res = await call(user, "POST", "", body);
  expect(res.statusCode).toBe(201);
  return res.json() as { key: { id: number; maskedKey: string; last4: string; status: string }; secret: string };
}

async function deleteAll(user: TestUser) {
  for (const key of (await call(user, "GET", "")).json().keys) await call(user, "DELETE", `/${key.id}`);
}

describe("creating a key", () => {
  it("returns the full key once and lists it masked afterwards", async () => {
    const created = await createKey(alice, {
      name: "  ci runner  ",
      expiresAt: "2026-06-01T00:00:00+08:00",
      spendLimit: "12.5",
      allowedTools: ["echo", "qrcode"],
      ipAllowlist: ["10.0.0.0/8", "2001:db8::/32", "203.0.113.7"],
    });
    expect(created.secret).toMatch(/^tg_[A-Za-z0-9_-]{43}$/);
    expect(created.key).toMatchObject({
      name: "ci runner",
      prefix: "tg_",
      last4: created.secret.slice(-4),
      maskedKey: `tg_…${created.secret.slice(-4)}`,
      status: "active",
      createdAt: "2026-03-01T08:00:00.000Z",
      lastUsedAt: null,
      expiresAt: "2026-05-31T16:00:00.000Z",
      spendLimit: "12.50",
      spent: "0.00",
      allowedTools: ["echo", "qrcode"],
      ipAllowlist: ["10.0.0.0/8", "2001:db8::/32", "203.0.113.7"],
    });

    const list = await call(alice, "GET", "");
    expect(list.statusCode).toBe(200);
    expect(list.json().max).toBe(3);
    expect(list.json().keys).toEqual([created.key]);
    expect(list.body).not.toContain(created.secret);
    await deleteAll(alice);
  });

  it("stores only the SHA-256 of the key and its last four characters", async () => {
    const { key, secret } = await createKey(alice);
    const rows = await queryRows<Record<string, unknown>>(t.database.db, sql`select * from api_keys where id = ${key.id}`);
    expect(rows).toHaveLength(1);
    const stored = JSON.stringify(rows[0], (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(secret.slice(3));
    expect(rows[0]!.key_hash).toBe(createHash("sha256").update(secret).digest("hex"));
    expect(rows[0]!.last4).toBe(secret.slice(-4));
    expect(t.logs()).not.toContain(secret);
    await deleteAll(alice);
  });

  it("gives every key a different secret", async () => {
    const a = await createKey(alice);
    const b = await createKey(alice);
    expect(a.secret).not.toBe(b.secret);
    await deleteAll(alice);
  });

  it.each([
    [{ name: "" }, "name: name is required"],
    [{ name: "   " }, "name: name is required"],
    [{ name: "x".repeat(65) }, "name: name must be at most 64 characters"],
    [{ name: "k", spendLimit: "12,50" }, "spendLimit: spend limit must be an amount such as 100 or 12.50 (at most 6 decimals)"],
    [{ name: "k", spendLimit: "1e3" }, "spendLimit: spend limit must be an amount such as 100 or 12.50 (at most 6 decimals)"],
    [{ name: "k", spendLimit: "0" }, "spendLimit: spend limit must be greater than 0"],
    [{ name: "k", spendLimit: "-1" }, "spendLimit: spend limit must be greater than 0"],
    [{ name: "k", spendLimit: " -0.50 " }, "spendLimit: spend limit must be greater than 0"],
    [{ name: "k", spendLimit: "--1" }, "spendLimit: spend limit must be an amount such as 100 or 12.50 (at most 6 decimals)"],
    // Too large for the money type: a 400 that says the largest amount accepted, not one about decimals.
    [{ name: "k", spendLimit: "99999999999999999999" }, "spendLimit: spend limit must be no more than 9223372036854.775807"],
    [{ name: "k", spendLimit: "9223372036854.775808" }, "spendLimit: spend limit must be no more than 9223372036854.775807"],
    [{ name: "k", ipAllowlist: ["10.0.0.0/33"] }, "ipAllowlist.0: must be an IPv4 or IPv6 address or a CIDR range such as 10.0.0.0/8"],
    [{ name: "k", ipAllowlist: ["1.2.3.4", "example.com"] }, "ipAllowlist.1: must be an IPv4 or IPv6 address or a CIDR range such as 10.0.0.0/8"],
    [{ name: "k", expiresAt: "tomorrow" }, "expiresAt: expiry must be a date and time"],
    [{ name: "k", expiresAt: "2026-03-01T07:59:59Z" }, "expiresAt: expiry must be in the future"],
    [{ name: "k", expiresAt: "9999-12-31T23:59:59-14:00" }, "expiresAt: expiry must be before the year 10000"],
    [{ name: "k", allowedTools: ["Echo!"] }, "allowedTools.0: tool ids are lower-case letters, digits, '-' and '_'"],
    // Zod's own wording ("Invalid option: expected one of …") is for programmers: the API says what it accepts.
    [{ name: "k", spendLimit: "5", spendLimitPeriod: "week" }, "spendLimitPeriod: must be one of lifetime, day, month"],
    [{ name: "k", whenPrepaidRunsOut: "never" }, "whenPrepaidRunsOut: must be one of balance, stop"],
    [{}, "name: is required"],
    [{ name: 42 }, "name: must be text"],
    [{ name: "k", allowedTools: "echo" }, "allowedTools: must be a list"],
    [{ name: "k", spendLimit: 5 }, "spendLimit: must be text"],
  ])("refuses %j with a clear message and creates nothing", async (body, message) => {
    const res = await call(alice, "POST", "", body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ code: "validation_failed", message });
    expect((await call(alice, "GET", "")).json().keys).toEqual([]);
  });

  it("stops at the configured number of keys per user, and deleting one makes room", async () => {
    const made = [await createKey(alice), await createKey(alice), await createKey(alice)];
    const refused = await call(alice, "POST", "", { name: "one too many" });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({
      code: "api_key_limit_reached",
      message: "you already have 3 API keys, the most allowed: delete one you no longer use first",
    });
    expect((await call(alice, "GET", "")).json().keys).toHaveLength(3);
    // Another user's keys do not count against this one.
    await createKey(bob);

    await call(alice, "DELETE", `/${made[0]!.key.id}`);
    await createKey(alice);
    await deleteAll(alice);
    await deleteAll(bob);
  });

  it("holds the cap when many creations race", async () => {
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => call(alice, "POST", "", { name: `racer ${i}` })));
    expect(results.filter((r) => r.statusCode === 201)).toHaveLength(3);
    expect(results.filter((r) => r.statusCode === 400).every((r) => r.json().code === "api_key_limit_reached")).toBe(true);
    expect((await call(alice, "GET", "")).json().keys).toHaveLength(3);
    await deleteAll(alice);
  });

  it("replays the same key, not a second one, for a retried request, with a new secret (none is stored)", async () => {
    const headers = { ...alice.headers, "idempotency-key": "create-key-retry-1" };
    const first = await t.app.inject({ method: "POST", url: "/api/v1/console/keys", payload: { name: "retried" }, headers });
    const again = await t.app.inject({ method: "POST", url: "/api/v1/console/keys", payload: { name: "retried" }, headers });
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(again.json().key.id).toBe(first.json().key.id);
    expect(again.json().secret).not.toBe(first.json().secret);
    expect((await call(alice, "GET", "")).json().keys).toHaveLength(1);
    await deleteAll(alice);
  });
});

describe("changing a key", () => {
  it("renames, edits limits, disables and enables", async () => {
    const { key } = await createKey(alice);
    const renamed = await call(alice, "PATCH", `/${key.id}`, { name: "renamed" });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({ name: "renamed", status: "active" });

    const limited = await call(alice, "PATCH", `/${key.id}`, { spendLimit: "0.29", allowedTools: ["echo"], ipAllowlist: ["::1"] });
    expect(limited.json()).toMatchObject({ name: "renamed", spendLimit: "0.29", allowedTools: ["echo"], ipAllowlist: ["::1"] });
    const unlimited = await call(alice, "PATCH", `/${key.id}`, { spendLimit: null, allowedTools: [], ipAllowlist: [] });
    expect(unlimited.json()).toMatchObject({ spendLimit: null, allowedTools: [], ipAllowlist: [] });

    expect((await call(alice, "PATCH", `/${key.id}`, { enabled: false })).json().status).toBe("disabled");
    expect((await call(alice, "GET", "")).json().keys[0].status).toBe("disabled");
    expect((await call(alice, "PATCH", `/${key.id}`, { enabled: true })).json().status).toBe("active");
    await deleteAll(alice);
  });

  it("refuses tool ids the catalog does not have, naming them, but keeps ones the key already holds", async () => {
    const refused = await call(alice, "POST", "", { name: "k", allowedTools: ["nosuchtool"] });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({ code: "validation_failed", message: "allowedTools: no tool has the id nosuchtool" });
    const several = await call(alice, "POST", "", { name: "k", allowedTools: ["echo", "nope", "gone"] });
    expect(several.json()).toEqual({ code: "validation_failed", message: "allowedTools: no tools have the ids nope, gone" });
    expect((await call(alice, "GET", "")).json().keys).toEqual([]);

    const { key } = await createKey(alice, { name: "k", allowedTools: ["echo"] });
    const patched = await call(alice, "PATCH", `/${key.id}`, { name: "renamed", allowedTools: ["echo", "nosuchtool"] });
    expect(patched.statusCode).toBe(400);
    expect(patched.json()).toEqual({ code: "validation_failed", message: "allowedTools: no tool has the id nosuchtool" });
    expect((await call(alice, "GET", "")).json().keys[0]).toMatchObject({ name: "k", allowedTools: ["echo"] });

    // A tool the operator removed from the catalog after the key named it: the console's edit form sends it back unchanged.
    await queryRows(t.database.db, sql`update api_keys set allowed_tools = '{echo,retired}' where id = ${key.id}`);
    const edited = await call(alice, "PATCH", `/${key.id}`, { name: "edited", allowedTools: ["echo", "retired"] });
    expect(edited.statusCode).toBe(200);
    expect(edited.json()).toMatchObject({ name: "edited", allowedTools: ["echo", "retired"] });
    await deleteAll(alice);
  });

  it("shows a key as expired once its time has passed, and refuses a new expiry in the past", async () => {
    const { key } = await createKey(alice, { name: "short lived", expiresAt: "2026-03-01T09:00:00Z" });
    t.clock.advance(2 * 3600 * 1000);
    expect((await call(alice, "GET", "")).json().keys[0].status).toBe("expired");
    const past = await call(alice, "PATCH", `/${key.id}`, { expiresAt: "2026-03-01T09:30:00Z" });
    expect(past.statusCode).toBe(400);
    expect(past.json().message).toBe("expiresAt: expiry must be in the future");
    const extended = await call(alice, "PATCH", `/${key.id}`, { expiresAt: "2027-01-01T00:00:00Z" });
    expect(extended.json()).toMatchObject({ status: "active", expiresAt: "2027-01-01T00:00:00.000Z" });
    expect((await call(alice, "PATCH", `/${key.id}`, { expiresAt: null })).json().expiresAt).toBeNull();
    await deleteAll(alice);
  });

  it.each([
    ["abc", "id: must be a whole number, in digits"],
    ["1.5", "id: must be a whole number, in digits"],
    ["0", "id: must be greater than 0"],
    ["-1", "id: must be a whole number, in digits"],
    ["99999999999999999999", "id: is larger than any key's id"],
  ])("refuses the key id %s in plain words", async (id, message) => {
    for (const method of ["PATCH", "DELETE"] as const) {
      const res = await call(alice, method, `/${id}`, method === "PATCH" ? { name: "x" } : undefined);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ code: "validation_failed", message });
    }
  });

  it("deletes a key: it leaves the list and cannot be changed or deleted again", async () => {
    const { key } = await createKey(alice);
    const deleted = await call(alice, "DELETE", `/${key.id}`);
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toEqual({ id: key.id, deleted: true });
    expect((await call(alice, "GET", "")).json().keys).toEqual([]);
    expect((await call(alice, "PATCH", `/${key.id}`, { name: "back" })).statusCode).toBe(404);
    expect((await call(alice, "DELETE", `/${key.id}`)).statusCode).toBe(404);
  });

  it("names a key by its id in digits only: another spelling of the same number is refused, the key untouched", async () => {
    const { key } = await createKey(alice, { name: "by id" });
    const spellings = [`0x${key.id.toString(16)}`, `${key.id}e0`, `${key.id}.0`, `%20${key.id}`, `+${key.id}`];
    for (const spelling of spellings) {
      const res = await call(alice, "PATCH", `/${spelling}`, { name: "renamed" });
      expect([spelling, res.statusCode, res.json().code]).toEqual([spelling, 400, "validation_failed"]);
      expect(res.json().message).toBe("id: must be a whole number, in digits");
    }
    expect((await call(alice, "DELETE", `/0x${key.id.toString(16)}`)).statusCode).toBe(400);
    expect((await call(alice, "GET", "")).json().keys).toEqual([expect.objectContaining({ id: key.id, name: "by id", status: "active" })]);
    await deleteAll(alice);
  });
  it("refuses a field it does not take, naming it, rather than leave the key as it was and answer 200", async () => {
    const { key } = await createKey(alice, { name: "strict" });
    const misspelt = await call(alice, "PATCH", `/${key.id}`, { spend_limit: "5" });
    expect([misspelt.statusCode, misspelt.json()]).toEqual([400, { code: "validation_failed", message: "the request body does not take the field spend_limit" }]);
    const created = await call(alice, "POST", "", { name: "another", spendLimit: "1", limitPeriod: "day", ipAllowList: [] });
    expect([created.statusCode, created.json().message]).toEqual([400, "the request body does not take the fields limitPeriod, ipAllowList"]);
    expect((await call(alice, "GET", "")).json().keys).toEqual([expect.objectContaining({ id: key.id, name: "strict", spendLimit: null })]);
    await deleteAll(alice);
  });
});

describe("ownership", () => {
  it("never shows or lets another user touch a key: every endpoint answers as if it did not exist", async () => {
    const { key } = await createKey(alice, { name: "alice's" });
    expect((await call(bob, "GET", "")).json().keys).toEqual([]);

    const rename = await call(bob, "PATCH", `/${key.id}`, { name: "stolen" });
    expect(rename.statusCode).toBe(404);
    expect(rename.json()).toEqual({ code: "not_found", message: "server resource does not exist" });
    expect((await call(bob, "PATCH", `/${key.id}`, { enabled: false })).statusCode).toBe(404);
    expect((await call(bob, "PATCH", `/${key.id}`, {})).statusCode).toBe(404);
    expect((await call(bob, "DELETE", `/${key.id}`)).statusCode).toBe(404);
    // Same answer as for an id that exists for nobody.
    expect((await call(bob, "PATCH", "/999999", { name: "x" })).json()).toEqual(rename.json());

    const [still] = (await call(alice, "GET", "")).json().keys;
    expect(still).toMatchObject({ id: key.id, name: "alice's", status: "active" });
    await deleteAll(alice);
  });

  it("needs a signed-in user on every endpoint", async () => {
    const { key } = await createKey(alice);
    for (const [method, url] of [
      ["GET", ""],
      ["POST", ""],
      ["PATCH", `/${key.id}`],
      ["DELETE", `/${key.id}`],
    ] as const) {
      const res = await call(null, method, url, method === "GET" || method === "DELETE" ? undefined : { name: "x" });
      expect(res.statusCode, `${method} ${url}`).toBe(401);
    }
    expect((await call(alice, "GET", "")).json().keys).toHaveLength(1);
    await deleteAll(alice);
  });
});
