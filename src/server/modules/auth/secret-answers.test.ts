import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { idempotencyKeys, sessions } from "../../db/schema/index";
import { createSealer } from "../../lib/crypto";
import { phoneLoginClient } from "../../testing/phone-login";
import { tempDataDir } from "../../testing/temp-dir";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { sweepAuthState } from "./sweep";

/** Answers that carry a secret (a session token, a new API key): never cached, never stored, replayed briefly. */
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

let t: TestApp;
let client: ReturnType<typeof phoneLoginClient>;

beforeAll(async () => {
  t = await createTestApp({ DATA_DIR: tempDataDir(), ALTCHA_MAX_NUMBER: "100" });
  client = phoneLoginClient(t);
});
afterAll(() => t.close());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const userInfo = async (token: string) => (await t.app.inject({ url: "/api/v1/tools/user-info", headers: bearer(token) })).statusCode;

/** Every stored replay copy, opened as the server would open it. */
async function storedAnswers(): Promise<string> {
  const sealer = createSealer(t.config.sessionSecret, "idempotency");
  const rows = await t.database.db.select().from(idempotencyKeys);
  return rows.map((row) => (row.sealedResponse ? sealer.open(row.sealedResponse) : "")).join("\n");
}

async function loginWithKey(phone: string, key: string, ip: string) {
  await client.requestCode(phone, { ip });
  const code = client.latestCode(phone);
  return { code, first: await client.login(phone, code, "", { ip, headers: { "idempotency-key": key } }) };
}

describe("a login answer", () => {
  it("says no-store, is stored without its token, and a replay within minutes gets a new token for the same session", async () => {
    const phone = "13700004001";
    const { code, first } = await loginWithKey(phone, "login-replay-0001", "10.40.0.1");
    expect(first.statusCode).toBe(200);
    expect(first.headers["cache-control"]).toBe("no-store");
    const token = first.json<{ csrf_token: string }>().csrf_token;
    expect(await storedAnswers()).not.toContain(token);

    t.clock.advance(5 * MINUTE);
    const before = (await t.database.db.select().from(sessions)).length;
    const replay = await client.login(phone, code, "", { ip: "10.40.0.1", headers: { "idempotency-key": "login-replay-0001" } });
    expect(replay.statusCode).toBe(200);
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect(replay.headers["cache-control"]).toBe("no-store");
    const replayed = replay.json<{ csrf_token: string }>().csrf_token;
    expect(replayed).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(replayed).not.toBe(token);
    expect(await userInfo(replayed)).toBe(200);
    expect(await userInfo(token)).toBe(401);
    expect((await t.database.db.select().from(sessions)).length).toBe(before);
    expect(await storedAnswers()).not.toContain(replayed);
  });

  it("is replayed only to the browser that logged in: another gets the login run again, and the used code fails", async () => {
    const phone = "13700004004";
    const { code, first } = await loginWithKey(phone, "login-replay-0004", "10.40.0.4");
    expect(first.statusCode).toBe(200);
    const token = first.json<{ csrf_token: string }>().csrf_token;
    // Someone who saw the request (its body and key) but not the browser's HttpOnly cookie.
    const elsewhere = await client.login(phone, code, "", { ip: "10.40.0.4", browser: "someone-else", headers: { "idempotency-key": "login-replay-0004" } });
    expect(elsewhere.statusCode).toBe(400);
    expect(elsewhere.headers["idempotent-replayed"]).toBeUndefined();
    const noCookie = await t.app.inject({
      method: "POST",
      url: "/api/v1/auth/phone/login",
      remoteAddress: "10.40.0.4",
      headers: { "idempotency-key": "login-replay-0004" },
      payload: { telephone: phone, code, recommendCode: "" },
    });
    expect(noCookie.statusCode).toBe(400);
    expect(noCookie.headers["idempotent-replayed"]).toBeUndefined();
    // The session is untouched: its token still works.
    expect(await userInfo(token)).toBe(200);
  });

  it("is not replayed after ten minutes: the key runs the login again, and the used code fails", async () => {
    const phone = "13700004002";
    const { code, first } = await loginWithKey(phone, "login-replay-0002", "10.40.0.2");
    expect(first.statusCode).toBe(200);
    t.clock.advance(10 * MINUTE + 1000);
    const late = await client.login(phone, code, "", { ip: "10.40.0.2", headers: { "idempotency-key": "login-replay-0002" } });
    expect(late.statusCode).toBe(400);
    expect(late.headers["idempotent-replayed"]).toBeUndefined();
  });

  it("is not replayed once its session has ended", async () => {
    const phone = "13700004003";
    const { code, first } = await loginWithKey(phone, "login-replay-0003", "10.40.0.3");
    const token = first.json<{ csrf_token: string }>().csrf_token;
    await t.app.inject({ method: "POST", url: "/api/v1/auth/logout", headers: bearer(token) });
    const replay = await client.login(phone, code, "", { ip: "10.40.0.3", headers: { "idempotency-key": "login-replay-0003" } });
    expect(replay.statusCode).toBe(422);
    expect(replay.json()).toEqual({ code: "idempotency_key_reused", message: "Idempotency-Key was already used, and its answer can no longer be replayed" });
  });
});

describe("a new API key's answer", () => {
  it("says no-store, is stored without the secret, and a replay gets a new secret for the same key", async () => {
    const token = await client.signIn("13700004101", "", { ip: "10.40.1.1" });
    const create = () =>
      t.app.inject({
        method: "POST",
        url: "/api/v1/console/keys",
        payload: { name: "replayed" },
        headers: { ...bearer(token), "idempotency-key": "key-replay-0001" },
      });
    const first = await create();
    expect(first.statusCode).toBe(201);
    expect(first.headers["cache-control"]).toBe("no-store");
    const { key, secret } = first.json<{ key: { id: number; last4: string }; secret: string }>();
    expect(await storedAnswers()).not.toContain(secret);
    expect(await storedAnswers()).not.toContain(key.last4 + '"');

    const replay = await create();
    expect(replay.statusCode).toBe(201);
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect(replay.headers["cache-control"]).toBe("no-store");
    const again = replay.json<{ key: { id: number; last4: string }; secret: string }>();
    expect(again.key.id).toBe(key.id);
    expect(again.secret).not.toBe(secret);
    expect(again.key.last4).toBe(again.secret.slice(-4));
    const echo = (apiKey: string) => t.app.inject({ method: "POST", url: "/v1/tools/echo", payload: { hi: 1 }, headers: { authorization: `Bearer ${apiKey}` } });
    expect((await echo(secret)).statusCode).toBe(401);
    expect((await echo(again.secret)).statusCode).not.toBe(401);
    const keys = await t.app.inject({ url: "/api/v1/console/keys", headers: bearer(token) });
    expect(keys.json<{ keys: unknown[] }>().keys).toHaveLength(1);
  });
});

describe("the sweep", () => {
  it("deletes expired sessions and keeps live ones", async () => {
    const old = await client.signIn("13700004201", "", { ip: "10.40.2.1" });
    t.clock.advance(6 * DAY);
    const recent = await client.signIn("13700004202", "", { ip: "10.40.2.2" });
    t.clock.advance(DAY + MINUTE);
    const countBefore = (await t.database.db.select().from(sessions)).length;
    await sweepAuthState(t.database.db, t.clock.now());
    const remaining = await t.database.db.select().from(sessions);
    expect(remaining.length).toBeLessThan(countBefore);
    expect(remaining.every((s) => s.expiresAt > t.clock.now())).toBe(true);
    expect(await userInfo(old)).toBe(401);
    expect(await userInfo(recent)).toBe(200);
  });
});
