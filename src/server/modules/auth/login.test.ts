import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authEvents, sessions } from "../../db/schema/index";
import { metricsGrowth, TEST_METRICS_TOKEN } from "../../testing/metrics";
import { phoneLoginClient } from "../../testing/phone-login";
import { tempDataDir } from "../../testing/temp-dir";
import { createTestApp, type TestApp } from "../../testing/test-app";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const WRONG = { code: "invalid_code", message: "the verification code is wrong or has expired" };

let t: TestApp;
let client: ReturnType<typeof phoneLoginClient>;

beforeAll(async () => {
  t = await createTestApp({ DATA_DIR: tempDataDir(), ALTCHA_MAX_NUMBER: "1000", METRICS_TOKEN: TEST_METRICS_TOKEN });
  client = phoneLoginClient(t);
});
afterAll(() => t.close());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const userInfo = (token: string) => t.app.inject({ url: "/api/v1/tools/user-info", headers: bearer(token) });

/** Each phone asks from its own address, so the per-IP limits stay out of these tests. */
const ipFor = (phone: string) => `10.3.${Number(phone.slice(-4, -2))}.${Number(phone.slice(-2))}`;
const signIn = (phone: string, recommendCode = "") => client.signIn(phone, recommendCode, { ip: ipFor(phone) });

async function codeFor(phone: string): Promise<string> {
  const res = await client.requestCode(phone, { ip: ipFor(phone) });
  expect(res.json()).toMatchObject({ status: "success" });
  return client.latestCode(phone);
}

/** A 6-digit code that is not `code`. */
const other = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0");

describe("login and sign-up", () => {
  it("creates the user on first login and returns a session token", async () => {
    const res = await client.login("13800001001", await codeFor("13800001001"));
    expect(res.statusCode).toBe(200);
    const { csrf_token: token } = res.json<{ csrf_token: string }>();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const info = await userInfo(token);
    expect(info.statusCode).toBe(200);
    expect(info.json()).toMatchObject({ phone: "138****1001", balance: "0.00", createdAt: t.clock.now().toISOString() });
    expect(info.json().referralCode).toMatch(/^[2-9A-HJ-NP-Z]{8}$/);
  });

  it("counts code requests and logins in the metrics by result", async () => {
    const samples = [
      'tollgate_verification_codes_total{result="sent"}',
      'tollgate_verification_codes_total{result="cooldown"}',
      'tollgate_logins_total{result="succeeded"}',
      'tollgate_logins_total{result="invalid_code"}',
    ];
    const growth = await metricsGrowth(t.app, samples, async () => {
      const code = await codeFor("13800001009");
      expect((await client.requestCode("13800001009", { ip: ipFor("13800001009") })).json()).toMatchObject({ status: "failed", reason: "cooldown" });
      expect((await client.login("13800001009", other(code))).statusCode).toBe(400);
      expect((await client.login("13800001009", code)).statusCode).toBe(200);
    });
    expect(Object.values(growth)).toEqual([1, 1, 1, 1]);
  });

  it("logs the same phone into the same user, whichever way it is typed", async () => {
    const first = await signIn("13800001002");
    t.clock.advance(2 * MINUTE);
    const code = await codeFor("13800001002");
    const again = await client.login("+86 138 0000 1002", code);
    expect(again.statusCode).toBe(200);
    const ids = await Promise.all([first, again.json().csrf_token as string].map(async (token) => (await userInfo(token)).json().id));
    expect(ids[0]).toBe(ids[1]);
  });

  it("stores sessions as SHA-256 of the token, valid 7 days", async () => {
    const token = await signIn("13800001003");
    const rows = await t.database.db.select().from(sessions);
    expect(rows.some((r) => r.tokenHash.includes(token))).toBe(false);
    t.clock.advance(7 * 24 * HOUR - MINUTE);
    expect((await userInfo(token)).statusCode).toBe(200);
    t.clock.advance(2 * MINUTE);
    expect((await userInfo(token)).statusCode).toBe(401);
  });
});

describe("referrals", () => {
  const referrals = async (token: string) => (await t.app.inject({ url: "/api/v1/console/referrals", headers: bearer(token) })).json().signups as number;

  it("records the referrer when a new user signs up with its code, only then, and ignores unknown codes", async () => {
    const referrerToken = await signIn("13800001101");
    const referralCode = (await userInfo(referrerToken)).json().referralCode as string;
    await signIn("13800001102", referralCode);
    expect(await referrals(referrerToken)).toBe(1);

    const existing = await signIn("13800001103");
    t.clock.advance(2 * MINUTE);
    const res = await client.login("13800001103", await codeFor("13800001103"), referralCode);
    expect(res.statusCode).toBe(200);
    expect(await referrals(referrerToken)).toBe(1);
    expect((await userInfo(existing)).statusCode).toBe(200);

    const unknown = await client.login("13800001104", await codeFor("13800001104"), "NOSUCHCODE");
    expect(unknown.statusCode).toBe(200);
    expect(await referrals(referrerToken)).toBe(1);
  });
});

describe("codes that do not log in", () => {
  it("gives one 400 answer for a wrong, an expired and a used code", async () => {
    const wrong = await client.login("13800001201", other(await codeFor("13800001201")));
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toEqual(WRONG);

    const expiring = await codeFor("13800001202");
    t.clock.advance(5 * MINUTE + 1);
    const expired = await client.login("13800001202", expiring);
    expect(expired.statusCode).toBe(400);
    expect(expired.json()).toEqual(WRONG);

    const code = await codeFor("13800001203");
    expect((await client.login("13800001203", code)).statusCode).toBe(200);
    const used = await client.login("13800001203", code);
    expect(used.statusCode).toBe(400);
    expect(used.json()).toEqual(WRONG);

    const none = await client.login("13800001204", "123456");
    expect(none.json()).toEqual(WRONG);
  });

  it("keeps a code valid for 5 minutes", async () => {
    const code = await codeFor("13800001205");
    t.clock.advance(5 * MINUTE - 1);
    expect((await client.login("13800001205", code)).statusCode).toBe(200);
  });

  it("counts only the latest code sent", async () => {
    const phone = "13800001206";
    const older = await codeFor(phone);
    t.clock.advance(61_000);
    const newer = await codeFor(phone);
    if (older !== newer) expect((await client.login(phone, older)).statusCode).toBe(400);
    expect((await client.login(phone, newer)).statusCode).toBe(200);
  });

  it("kills a code after 5 wrong tries, even for the right code", async () => {
    const phone = "13800001207";
    const code = await codeFor(phone);
    for (let i = 0; i < 5; i++) expect((await client.login(phone, other(code))).statusCode).toBe(400);
    const right = await client.login(phone, code);
    expect(right.statusCode).toBe(400);
    expect(right.json()).toEqual(WRONG);
    t.clock.advance(61_000);
    expect((await client.login(phone, await codeFor(phone))).statusCode).toBe(200);
  });

  it("accepts a code only from the browser that asked for it", async () => {
    const phone = "13800001208";
    const code = await client.requestCode(phone, { ip: ipFor(phone), browser: "owner-1208" }).then(() => client.latestCode(phone));
    const elsewhere = await client.login(phone, code, "", { ip: ipFor(phone), browser: "thief-1208" });
    expect(elsewhere.statusCode).toBe(400);
    expect(elsewhere.json()).toEqual(WRONG);
    const cookie = client.cookiesOf("owner-1208").login_client;
    expect(cookie).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await client.login(phone, code, "", { ip: ipFor(phone), browser: "owner-1208" })).statusCode).toBe(200);
  });

  it("sets the login cookie HttpOnly, SameSite=Strict, for the login routes only", async () => {
    const res = await client.requestCode("13800001209", { ip: ipFor("13800001209"), browser: "cookie-1209" });
    const cookie = res.cookies.find((c) => c.name === "login_client");
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/api/v1/auth", maxAge: 365 * 86_400 });
    const again = await client.requestCode("13800001209", { ip: ipFor("13800001209"), browser: "cookie-1209" });
    expect(again.cookies.find((c) => c.name === "login_client")?.value).toBe(cookie?.value);
  });

  it("gives the browser its login cookie with the captcha settings, so a code request whose answer was lost and is replayed still leads to a login", async () => {
    const phone = "13800001211";
    const ip = ipFor(phone);
    const settings = await t.app.inject({ method: "GET", url: "/api/v1/auth/captcha", remoteAddress: ip });
    const issued = settings.cookies.find((c) => c.name === "login_client");
    expect(issued).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/api/v1/auth", maxAge: 365 * 86_400 });
    const cookies = { login_client: issued!.value };
    const reopened = await t.app.inject({ method: "GET", url: "/api/v1/auth/captcha", remoteAddress: ip, cookies });
    expect(reopened.cookies.find((c) => c.name === "login_client")?.value).toBe(issued!.value);

    const captchaResult = await client.solveCaptcha({ ip, browser: "lost-1211" });
    const requestCode = () =>
      t.app.inject({
        method: "POST",
        url: "/api/v1/auth/phone/verification_code",
        remoteAddress: ip,
        cookies,
        headers: { "idempotency-key": "lost-answer-1211" },
        payload: { telephone: phone, captchaResult },
      });
    expect((await requestCode()).statusCode).toBe(200); // this answer never reaches the browser
    const retried = await requestCode();
    expect(retried.statusCode).toBe(200);
    expect(retried.headers["idempotent-replayed"]).toBe("true");
    const login = await t.app.inject({
      method: "POST",
      url: "/api/v1/auth/phone/login",
      remoteAddress: ip,
      cookies,
      payload: { telephone: phone, code: client.latestCode(phone), recommendCode: "" },
    });
    expect(login.statusCode).toBe(200);
  });

  it("lets one code log in exactly once when many logins race with it", async () => {
    const phone = "13800001210";
    const code = await codeFor(phone);
    const before = (await t.database.db.select().from(sessions)).length;
    const results = await Promise.all(Array.from({ length: 12 }, () => client.login(phone, code)));
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(1);
    expect(results.filter((r) => r.statusCode === 400)).toHaveLength(11);
    expect((await t.database.db.select().from(sessions)).length).toBe(before + 1);
  });
});

describe("logout", () => {
  it("ends the current session only", async () => {
    const phone = "13800001301";
    const first = await signIn(phone);
    t.clock.advance(2 * MINUTE);
    const second = await signIn(phone);
    const res = await t.app.inject({ method: "POST", url: "/api/v1/auth/logout", headers: bearer(first) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true });
    expect((await userInfo(first)).statusCode).toBe(401);
    expect((await userInfo(second)).statusCode).toBe(200);
  });

  it("ends every session of the user with logout-all", async () => {
    const phone = "13800001302";
    const first = await signIn(phone);
    t.clock.advance(2 * MINUTE);
    const second = await signIn(phone);
    const bystander = await signIn("13800001303");
    expect((await t.app.inject({ method: "POST", url: "/api/v1/auth/logout-all", headers: bearer(second) })).statusCode).toBe(200);
    expect((await userInfo(first)).statusCode).toBe(401);
    expect((await userInfo(second)).statusCode).toBe(401);
    expect((await userInfo(bystander)).statusCode).toBe(200);
  });

  it("needs a session", async () => {
    for (const url of ["/api/v1/auth/logout", "/api/v1/auth/logout-all"]) {
      expect((await t.app.inject({ method: "POST", url })).statusCode).toBe(401);
    }
  });
});

describe("what is recorded", () => {
  it("audits logins and logouts with the masked phone, IP, user agent and request id", async () => {
    const phone = "13800001401";
    const code = await codeFor(phone);
    const failed = await client.login(phone, other(code), "", { ip: "10.5.0.1", userAgent: "agent-a" });
    const ok = await client.login(phone, code, "", { ip: "10.5.0.1", userAgent: "agent-a" });
    await t.app.inject({ method: "POST", url: "/api/v1/auth/logout", headers: { ...bearer(ok.json().csrf_token), "user-agent": "agent-b" } });
    const events = await t.database.db.select().from(authEvents).where(eq(authEvents.phoneMasked, "138****1401")).orderBy(authEvents.id);
    expect(events.map((e) => [e.type, e.reason])).toEqual([
      ["code_sent", null],
      ["login_failed", "mismatch"],
      ["login_succeeded", "signup"],
      ["logout", null],
    ]);
    expect(events[1]).toMatchObject({ ip: "10.5.0.1", userAgent: "agent-a", requestId: failed.headers["x-request-id"] });
    expect(events[2]?.userId).toBe(events[3]?.userId);
  });

  it("never writes a code, a token or a full phone number to the log", async () => {
    const phone = "13800001402";
    const code = await codeFor(phone);
    await client.login(phone, other(code));
    const token = (await client.login(phone, code)).json().csrf_token as string;
    await userInfo(token);
    await t.app.inject({ method: "POST", url: "/api/v1/auth/logout-all", headers: bearer(token) });
    const logs = t.logs();
    expect(logs).toContain("138****1402");
    // Standalone occurrences: a 6-digit code may appear by chance inside a timestamp or a request id.
    const leaks = [code, other(code), token, phone].flatMap((secret) =>
      [...logs.matchAll(new RegExp(`(?<![0-9A-Za-z_-])${secret}(?![0-9A-Za-z_-])`, "g"))].map((m) => logs.slice(m.index - 80, m.index + 80)),
    );
    expect(leaks).toEqual([]);
  });
});
