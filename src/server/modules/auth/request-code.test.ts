import { desc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authCaptchaUses, authEvents, authRateEvents, authVerificationCodes } from "../../db/schema/index";
import { phoneLoginClient } from "../../testing/phone-login";
import { readOutbox } from "../../testing/sms-outbox";
import { tempDataDir } from "../../testing/temp-dir";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { sweepAuthState } from "./sweep";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

let t: TestApp;
let client: ReturnType<typeof phoneLoginClient>;

beforeAll(async () => {
  t = await createTestApp({ DATA_DIR: tempDataDir(), ALTCHA_MAX_NUMBER: "1000", SITE_NAME: "Acme APIs" });
  client = phoneLoginClient(t);
});
afterAll(() => t.close());

/** Each test speaks from its own address, so the per-IP limits of one do not reach another. */
let ipSeq = 0;
const freshIp = () => `10.1.0.${++ipSeq}`;

async function send(phone: string, ip: string) {
  const res = await client.requestCode(phone, { ip });
  return { status: res.statusCode, body: res.json<{ status?: string; message: string; code?: string }>(), headers: res.headers };
}

describe("sending a code", () => {
  it("sends a 6-digit code naming the site and answers success", async () => {
    const res = await send("13800000001", freshIp());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "success", message: "code sent successfully" });
    const [message] = readOutbox(t.config.dataDir).filter((m) => m.to === "13800000001");
    expect(message?.text).toMatch(/^\[Acme APIs\] Your verification code is \d{6}\. It is valid for 5 minutes\./);
    expect(message?.at).toBe(t.clock.now().toISOString());
  });

  it("accepts the phone with spaces and a +86, 0086 or 86 prefix", async () => {
    const ip = freshIp();
    for (const [i, typed] of ["+86 138 0000 0010", "0086 13800000011", "8613800000012", "138 0000 0013"].entries()) {
      expect((await send(typed, ip)).body.status).toBe("success");
      expect(readOutbox(t.config.dataDir).some((m) => m.to === `1380000001${i}`)).toBe(true);
    }
  });

  it("refuses a phone that is not a mainland mobile number with 400", async () => {
    for (const bad of ["", "12800000000", "1380000000", "138000000001", "+1 13800000000", "abc"]) {
      const res = await send(bad, freshIp());
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: "invalid_phone", message: "please enter the correct phone number" });
    }
  });

  it("answers a registered and an unregistered phone alike", async () => {
    const ip = freshIp();
    await client.signIn("13800000020", "", { ip });
    t.clock.advance(2 * MINUTE);
    const registered = await send("13800000020", ip);
    const unknown = await send("13800000021", ip);
    expect(registered.status).toBe(unknown.status);
    expect(registered.body).toEqual(unknown.body);
  });

  it("records the sending in the audit log with the phone masked, the IP, user agent and request id", async () => {
    const ip = freshIp();
    const res = await client.requestCode("13800000030", { ip, userAgent: "audit-agent/1.0" });
    const [event] = await t.database.db.select().from(authEvents).where(eq(authEvents.ip, ip)).orderBy(desc(authEvents.id)).limit(1);
    expect(event).toMatchObject({
      type: "code_sent",
      phoneMasked: "138****0030",
      ip,
      userAgent: "audit-agent/1.0",
      requestId: res.headers["x-request-id"],
    });
  });
});

describe("per-phone limits (status failed, saying when to retry)", () => {
  it("lets a phone have a new code only 60 s after the last", async () => {
    const ip = freshIp();
    expect((await send("13800000101", ip)).body.status).toBe("success");
    expect((await send("13800000101", ip)).body).toEqual({
      status: "failed",
      message: "please wait 60 seconds before requesting another code",
      reason: "cooldown",
      retryAfterSeconds: 60,
    });
    t.clock.advance(59 * SECOND);
    expect((await send("13800000101", ip)).body).toMatchObject({ status: "failed", message: "please wait 1 second before requesting another code" });
    t.clock.advance(1 * SECOND);
    expect((await send("13800000101", ip)).body.status).toBe("success");
  });

  it("sends at most 5 codes to a phone per hour", async () => {
    const phone = "13800000102";
    const first = t.clock.now().getTime();
    for (let i = 0; i < 5; i++) {
      expect((await send(phone, freshIp())).body.status).toBe("success");
      t.clock.advance(2 * MINUTE);
    }
    // The 6th, 10 minutes after the first: the first leaves the hour 50 minutes from now.
    expect((await send(phone, freshIp())).body).toEqual({
      status: "failed",
      message: "too many codes requested for this number, please retry in 50 minutes",
      reason: "phone_hourly",
      retryAfterSeconds: 50 * 60,
    });
    t.clock.set(new Date(first + HOUR + 1));
    expect((await send(phone, freshIp())).body.status).toBe("success");
  });

  it("sends at most 10 codes to a phone per day", async () => {
    const phone = "13800000103";
    const first = t.clock.now().getTime();
    for (let i = 0; i < 10; i++) {
      expect((await send(phone, freshIp())).body.status, `code ${i + 1}`).toBe("success");
      t.clock.advance(13 * MINUTE);
    }
    // 130 minutes after the first: it leaves the day in 21 h 50 min.
    expect((await send(phone, freshIp())).body).toEqual({
      status: "failed",
      message: "too many codes requested for this number today, please retry in 22 hours",
      reason: "phone_daily",
      retryAfterSeconds: (21 * 60 + 50) * 60,
    });
    t.clock.set(new Date(first + 24 * HOUR - MINUTE));
    expect((await send(phone, freshIp())).body.status).toBe("failed");
    t.clock.set(new Date(first + 24 * HOUR + 1));
    expect((await send(phone, freshIp())).body.status).toBe("success");
  });
});

describe("concurrent requests", () => {
  it("sends one code when many requests for one phone race", async () => {
    const phone = "13800000150";
    const captchas = await Promise.all(Array.from({ length: 8 }, () => client.solveCaptcha()));
    const results = await Promise.all(captchas.map((captchaResult) => client.requestCode(phone, { ip: freshIp(), captchaResult })));
    expect(results.map((r) => r.json().status).sort()).toEqual(["failed", "failed", "failed", "failed", "failed", "failed", "failed", "success"]);
    expect(readOutbox(t.config.dataDir).filter((m) => m.to === phone)).toHaveLength(1);
  });
});

describe("per-IP limits (HTTP 429)", () => {
  it("answers at most 20 code requests per IP per hour", async () => {
    const ip = freshIp();
    const start = t.clock.now().getTime();
    expect((await send("13800000201", ip)).body.status).toBe("success");
    // Refused for the phone's cooldown, but answered: each one counts against the IP.
    for (let i = 0; i < 19; i++) expect((await send("13800000201", ip)).status).toBe(200);
    t.clock.advance(10 * MINUTE);
    const flooded = await send("13800000202", ip);
    expect(flooded.status).toBe(429);
    expect(flooded.body).toEqual({ code: "rate_limited", message: "too many requests, please try later" });
    expect(flooded.headers["retry-after"]).toBe(String(50 * 60));
    expect((await send("13800000202", freshIp())).body.status).toBe("success");
    t.clock.set(new Date(start + HOUR + 1));
    expect((await send("13800000203", ip)).status).toBe(200);
  });

  it("sends to at most 10 distinct phones per IP per hour", async () => {
    const ip = freshIp();
    for (let i = 0; i < 10; i++) expect((await send(`1380000030${i}`, ip)).body.status).toBe("success");
    const eleventh = await send("13800000310", ip);
    expect(eleventh.status).toBe(429);
    t.clock.advance(61 * SECOND);
    // One of the ten again is not a new phone.
    expect((await send("13800000300", ip)).body.status).toBe("success");
    t.clock.advance(HOUR - 60 * SECOND);
    expect((await send("13800000310", ip)).body.status).toBe("success");
  });

  it("does not consume the captcha of a request it refuses", async () => {
    const ip = freshIp();
    for (let i = 0; i < 10; i++) await send(`1380000040${i}`, ip);
    const captchaResult = await client.solveCaptcha();
    expect((await client.requestCode("13800000410", { ip, captchaResult })).statusCode).toBe(429);
    expect((await client.requestCode("13800000410", { ip: freshIp(), captchaResult })).json()).toEqual({
      status: "success",
      message: "code sent successfully",
    });
  });
});

describe("captcha", () => {
  it("refuses a missing or forged captcha result", async () => {
    for (const captchaResult of ["", "not base64 json", Buffer.from('{"challenge":{},"solution":{}}').toString("base64")]) {
      const res = await client.requestCode("13800000501", { ip: freshIp(), captchaResult });
      expect(res.json()).toMatchObject({ status: "failed", message: "captcha verification failed, please try again" });
    }
    expect(readOutbox(t.config.dataDir).some((m) => m.to === "13800000501")).toBe(false);
  });

  it("refuses a solved captcha the second time, for any phone", async () => {
    const captchaResult = await client.solveCaptcha();
    expect((await client.requestCode("13800000502", { ip: freshIp(), captchaResult })).json().status).toBe("success");
    const replay = await client.requestCode("13800000503", { ip: freshIp(), captchaResult });
    expect(replay.json()).toMatchObject({ status: "failed", message: "captcha verification failed, please try again" });
    expect(readOutbox(t.config.dataDir).some((m) => m.to === "13800000503")).toBe(false);
  });

  it("refuses a solution whose key or challenge was altered", async () => {
    const solved = JSON.parse(Buffer.from(await client.solveCaptcha(), "base64").toString()) as {
      challenge: { parameters: { data: { exp: number } } };
      solution: { derivedKey: string };
    };
    const key = structuredClone(solved);
    key.solution.derivedKey = key.solution.derivedKey.replace(/^./, (c) => (c === "0" ? "1" : "0"));
    const expiry = structuredClone(solved);
    expiry.challenge.parameters.data.exp += 3600;
    for (const altered of [key, expiry]) {
      const captchaResult = Buffer.from(JSON.stringify(altered)).toString("base64");
      expect((await client.requestCode("13800000504", { ip: freshIp(), captchaResult })).json().status).toBe("failed");
    }
  });

  it("refuses a challenge solved more than 5 minutes after it was issued", async () => {
    const captchaResult = await client.solveCaptcha();
    t.clock.advance(5 * MINUTE + SECOND);
    const res = await client.requestCode("13800000505", { ip: freshIp(), captchaResult });
    expect(res.json()).toMatchObject({ status: "failed", message: "captcha verification failed, please try again" });
  });

  it("tells the browser to use the self-hosted captcha", async () => {
    const res = await t.app.inject({ url: "/api/v1/auth/captcha" });
    expect(res.json()).toEqual({ provider: "altcha", challengeUrl: "/api/v1/auth/captcha/altcha/challenge" });
    expect(res.headers["cache-control"]).toBe("no-store");
  });
});

describe("housekeeping", () => {
  it("forgets what no limit looks at any more", async () => {
    await send("13800000601", freshIp());
    t.clock.advance(25 * HOUR + 1);
    await sweepAuthState(t.database.db, t.clock.now());
    expect(await t.database.db.select().from(authRateEvents)).toEqual([]);
    expect(await t.database.db.select().from(authCaptchaUses)).toEqual([]);
    expect(await t.database.db.select().from(authVerificationCodes)).toEqual([]);
  });
});

describe("the global SMS budget", () => {
  it("stops sending for everyone when the day's budget is spent", async () => {
    const budget = await createTestApp({ DATA_DIR: tempDataDir(), ALTCHA_MAX_NUMBER: "100", AUTH_SMS_DAILY_BUDGET: "3" });
    try {
      const c = phoneLoginClient(budget);
      for (let i = 0; i < 3; i++) {
        expect((await c.requestCode(`1390000000${i}`, { ip: `10.2.0.${i}` })).json().status).toBe("success");
        budget.clock.advance(HOUR);
      }
      expect((await c.requestCode("13900000009", { ip: "10.2.0.9" })).json()).toMatchObject({
        status: "failed",
        message: "code sending is paused for now, please retry in 21 hours",
        reason: "sms_budget",
      });
      budget.clock.advance(21 * HOUR + 1);
      expect((await c.requestCode("13900000009", { ip: "10.2.0.9" })).json().status).toBe("success");
    } finally {
      await budget.close();
    }
  });
});
