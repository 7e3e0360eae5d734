/**
 * Signing in without the login modal, for specs whose subject is elsewhere: a real code request
 * (altcha solved in Node, the code read back from the server's SMS outbox) and a real login.
 */
import { randomInt } from "node:crypto";
import { expect, request as playwrightRequest, type APIRequestContext, type Page } from "@playwright/test";
import type { Challenge } from "altcha-lib";
import { solveAltchaChallenge } from "../../../src/server/testing/altcha";
import { latestCodeFor } from "../../../src/server/testing/sms-outbox";
import { E2E_DATA_DIR, E2E_PORT } from "./e2e-env";

const SESSION_SECONDS = 604_800;

/** A valid mainland mobile number nobody else in the run is likely to use. */
export function randomPhone(): string {
  return `139${String(randomInt(0, 100_000_000)).padStart(8, "0")}`;
}

/** Fetches an altcha challenge from the server and solves it as the widget would; returns the `captchaResult`. */
export async function solveCaptcha(request: APIRequestContext): Promise<string> {
  const res = await request.get("/api/v1/auth/captcha/altcha/challenge");
  expect(res.status(), "altcha challenge").toBe(200);
  return solveAltchaChallenge((await res.json()) as Challenge);
}

/** The browser tests' server, or another a spec starts itself. */
export interface TestServer {
  base: string;
  dataDir: string;
}
const E2E_SERVER: TestServer = { base: `http://127.0.0.1:${E2E_PORT}`, dataDir: E2E_DATA_DIR };

/** The code in the newest SMS the server wrote to `phone` (waits up to 10 s for one to appear). */
export async function readLatestCode(phone: string, server: TestServer = E2E_SERVER): Promise<string> {
  let code: string | null = null;
  await expect
    .poll(() => (code = latestCodeFor(server.dataDir, phone)), { message: `an SMS to ${phone} in the outbox`, timeout: 10_000 })
    .not.toBeNull();
  return code!;
}

/**
 * Requests a code and logs in through the API; signs up a new random phone when none is given.
 * Both calls go through one request context, which carries back the `login_client` cookie the
 * code request sets: a code answers only to the browser that asked for it (decision 017).
 */
export async function loginViaApi(
  request: APIRequestContext,
  phone: string = randomPhone(),
  recommendCode = "",
  server: TestServer = E2E_SERVER,
): Promise<{ token: string; phone: string }> {
  const sent = await request.post("/api/v1/auth/phone/verification_code", { data: { telephone: phone, captchaResult: await solveCaptcha(request) } });
  expect(sent.status(), await sent.text()).toBe(200);
  expect(await sent.json()).toMatchObject({ status: "success" });
  const login = await request.post("/api/v1/auth/phone/login", { data: { telephone: phone, code: await readLatestCode(phone, server), recommendCode } });
  expect(login.status(), await login.text()).toBe(200);
  const { csrf_token: token } = (await login.json()) as { csrf_token: string };
  return { token, phone };
}

/**
 * Makes the page start signed in: the token goes into localStorage `csrf-token` before the app's
 * first script runs (once per tab, so a test that logs out stays logged out) and into the `token`
 * cookie, as the app itself stores them.
 */
export async function signInPage(page: Page, token: string, server: TestServer = E2E_SERVER): Promise<void> {
  await page.addInitScript((value) => {
    if (window.sessionStorage.getItem("e2e-signed-in")) return;
    window.localStorage.setItem("csrf-token", value);
    window.sessionStorage.setItem("e2e-signed-in", "1");
  }, token);
  await page.context().addCookies([
    { name: "token", value: token, url: server.base, expires: Math.floor(Date.now() / 1000) + SESSION_SECONDS },
  ]);
}

/**
 * A new user of `server` signed in through the API, with a redemption code redeemed and one API
 * key: the request context (dispose it), the token and its header, and the key's secret.
 */
export async function fundedUserWithKey(server: TestServer, code: string, keyName: string) {
  const api = await playwrightRequest.newContext({ baseURL: server.base });
  const { token } = await loginViaApi(api, undefined, "", server);
  const auth = { authorization: `Bearer ${token}` };
  const redeemed = await api.post("/api/v1/console/redeem", { data: { code }, headers: auth });
  expect(redeemed.status(), await redeemed.text()).toBe(200);
  const key = await api.post("/api/v1/console/keys", { data: { name: keyName }, headers: auth });
  expect(key.status(), await key.text()).toBe(201);
  const { secret } = (await key.json()) as { secret: string };
  return { api, token, auth, secret };
}
