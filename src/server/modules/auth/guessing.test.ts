import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { phoneLoginClient, type RequestOptions } from "../../testing/phone-login";
import { tempDataDir } from "../../testing/temp-dir";
import { createTestApp, type TestApp } from "../../testing/test-app";

/**
 * Decision 017's threat model, driven the way it would be attacked: behind a trusted proxy, every
 * attacker request from its own address (`X-Forwarded-For`) and, where it helps the attacker, its
 * own browser.
 */
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const WRONG = { code: "invalid_code", message: "the verification code is wrong or has expired" };

let t: TestApp;
let client: ReturnType<typeof phoneLoginClient>;

beforeAll(async () => {
  t = await createTestApp({ DATA_DIR: tempDataDir(), ALTCHA_MAX_NUMBER: "100", TRUST_PROXY: "true" });
  client = phoneLoginClient(t);
});
afterAll(() => t.close());

let nextAddress = 0;
/** A request from an address no other request of this file uses, through the trusted proxy. */
const from = (browser: string, ip = `198.51.${Math.floor(nextAddress / 250)}.${(nextAddress++ % 250) + 1}`): RequestOptions => ({
  browser,
  headers: { "x-forwarded-for": ip },
});
const other = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0");

async function codeFor(phone: string, options: RequestOptions): Promise<string> {
  const res = await client.requestCode(phone, options);
  expect(res.json()).toMatchObject({ status: "success" });
  return client.latestCode(phone);
}

describe("an attacker with many addresses", () => {
  it("cannot lock the owner out with wrong codes, nor spend the owner's code", async () => {
    const phone = "13900003001";
    const owner = from("owner-3001", "203.0.113.1");
    const code = await codeFor(phone, owner);

    for (let i = 0; i < 60; i++) {
      const guess = await client.login(phone, String(i).padStart(6, "0"), "", from(`stranger-3001-${i}`));
      expect(guess.statusCode).toBe(400);
      expect(guess.json()).toEqual(WRONG);
    }
    // Strangers who asked for codes of their own and spent them on wrong guesses.
    for (let i = 0; i < 3; i++) {
      t.clock.advance(61_000);
      const browser = from(`asker-3001-${i}`);
      const theirs = await codeFor(phone, browser);
      for (let k = 0; k < 6; k++) await client.login(phone, other(theirs), "", browser);
    }

    expect((await client.login(phone, code, "", owner)).statusCode).toBe(200);
    t.clock.advance(61_000);
    const again = await client.requestCode(phone, owner);
    expect(again.json()).toEqual({ status: "success", message: "code sent successfully" });
    expect((await client.login(phone, client.latestCode(phone), "", owner)).statusCode).toBe(200);
  });

  it("gets at most 50 guesses at a phone in a day, and the owner's browser still gets its codes", async () => {
    const phone = "13900003002";
    const owner = from("owner-3002", "203.0.113.2");
    expect((await client.login(phone, await codeFor(phone, owner), "", owner)).statusCode).toBe(200);
    t.clock.advance(25 * HOUR);

    // Each code a stranger's browser obtains takes 5 wrong guesses, then is dead even for the right code.
    let evaluated = 0;
    let codes = 0;
    for (let i = 0; i < 14; i++) {
      t.clock.advance(i % 5 === 4 ? HOUR : 61_000);
      const browser = from(`guesser-3002-${i}`);
      const sent = await client.requestCode(phone, browser);
      if (sent.json<{ status: string }>().status !== "success") {
        expect(sent.json()).toMatchObject({ status: "failed", reason: "phone_daily" });
        continue;
      }
      codes++;
      const theirs = client.latestCode(phone);
      for (let k = 0; k < 5; k++) {
        expect((await client.login(phone, other(theirs), "", browser)).statusCode).toBe(400);
        evaluated++;
      }
      expect((await client.login(phone, theirs, "", browser)).statusCode).toBe(400);
    }
    expect(codes).toBe(10);
    expect(evaluated).toBe(50);

    // The owner's browser, which logged in to this phone before, has codes of its own.
    t.clock.advance(61_000);
    const mine = await codeFor(phone, owner);
    expect((await client.login(phone, mine, "", owner)).statusCode).toBe(200);
  });

  it("slows down the one address that sends too many wrong codes, and no other", async () => {
    const phone = "13900003003";
    const attacker = from("attacker-3003", "192.0.2.77");
    // Codes of the attacker's own browser to guess at, five guesses each: a login with no code to
    // match, or against a code that is dead, guesses nothing and is not counted.
    const phones = [phone, "13900003006", "13900003007", "13900003008", "13900003009", "13900003010"];
    for (const [n, target] of phones.entries()) {
      const theirs = await codeFor(target, attacker);
      for (let k = 0; k < 5; k++) expect((await client.login(target, other(theirs), "", attacker)).json()).toEqual(WRONG);
      if (n === 0) {
        for (let k = 0; k < 10; k++) expect((await client.login(target, other(theirs), "", attacker)).json()).toEqual(WRONG);
        expect((await client.login(target, theirs, "", attacker)).json()).toEqual(WRONG);
      }
    }
    const refused = await client.login(phone, "999999", "", attacker);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ code: "login_limited", message: "too many failed logins from this network, please retry in 60 minutes" });
    expect(refused.headers["retry-after"]).toBe("3600");

    const owner = from("owner-3003", "203.0.113.3");
    t.clock.advance(61_000);
    expect((await client.login(phone, await codeFor(phone, owner), "", owner)).statusCode).toBe(200);
    t.clock.advance(HOUR);
    expect((await client.login(phone, "999999", "", attacker)).statusCode).toBe(400);
  });
});

describe("an attacker sharing the owner's address (a carrier's NAT, an office)", () => {
  it("cannot lock its logins with logins that have no code to guess: no login cookie, or no code asked for", async () => {
    const phone = "13900003004";
    const shared = "192.0.2.88";
    // A browser with a login cookie and a code, for another phone.
    const stranger = from("stranger-3004", shared);
    await codeFor("13900003014", stranger);
    for (let i = 0; i < 50; i++) {
      const guess = String(i).padStart(6, "0");
      expect((await client.login(phone, guess, "", from(`no-cookie-3004-${i}`, shared))).json()).toEqual(WRONG);
      expect((await client.login(phone, guess, "", stranger)).json()).toEqual(WRONG);
    }
    const owner = from("owner-3004", shared);
    expect((await client.login(phone, await codeFor(phone, owner), "", owner)).statusCode).toBe(200);
  });

  it("cannot use up its code requests with captchas it did not solve", async () => {
    const shared = "192.0.2.99";
    for (let i = 0; i < 150; i++) {
      const refused = await client.requestCode(`1390000${String(5000 + i)}`, { ...from(`no-captcha-${i}`, shared), captchaResult: "garbage" });
      expect(refused.json()).toMatchObject({ status: "failed", reason: "captcha_failed" });
    }
    const owner = from("owner-3005", shared);
    expect((await client.login("13900003005", await codeFor("13900003005", owner), "", owner)).statusCode).toBe(200);
  });
});
