import type { Challenge } from "altcha-lib";
import type { LightMyRequestResponse } from "fastify";
import { solveAltchaChallenge } from "./altcha";
import { latestCodeFor } from "./sms-outbox";
import type { TestApp } from "./test-app";

export interface RequestOptions {
  ip?: string;
  userAgent?: string;
  headers?: Record<string, string>;
  /** Which browser sends the request: each keeps its own cookies ("default" unless named). */
  browser?: string;
}

/** The phone login as browsers drive it against the app under test (self-hosted captcha, console SMS). */
export function phoneLoginClient(t: TestApp) {
  const cookieJars = new Map<string, Map<string, string>>();
  async function inject(method: "GET" | "POST", url: string, payload: object | undefined, options: RequestOptions = {}) {
    const jar = cookieJars.get(options.browser ?? "default") ?? new Map<string, string>();
    cookieJars.set(options.browser ?? "default", jar);
    const res = await t.app.inject({
      method,
      url,
      payload,
      remoteAddress: options.ip ?? "127.0.0.1",
      cookies: Object.fromEntries(jar),
      headers: { "user-agent": options.userAgent ?? "vitest", ...options.headers },
    });
    for (const cookie of res.cookies) jar.set(cookie.name, cookie.value);
    return res;
  }
  const client = {
    /** The cookies a browser holds, by name. */
    cookiesOf(browser = "default"): Record<string, string> {
      return Object.fromEntries(cookieJars.get(browser) ?? []);
    },
    async solveCaptcha(options: RequestOptions = {}): Promise<string> {
      const res = await inject("GET", "/api/v1/auth/captcha/altcha/challenge", undefined, options);
      if (res.statusCode !== 200) throw new Error(`challenge: ${res.statusCode} ${res.body}`);
      return solveAltchaChallenge(res.json<Challenge>());
    },
    async requestCode(telephone: string, options: RequestOptions & { captchaResult?: string } = {}): Promise<LightMyRequestResponse> {
      const captchaResult = options.captchaResult ?? (await client.solveCaptcha(options));
      return inject("POST", "/api/v1/auth/phone/verification_code", { telephone, captchaResult }, options);
    },
    login(telephone: string, code: string, recommendCode = "", options: RequestOptions = {}): Promise<LightMyRequestResponse> {
      return inject("POST", "/api/v1/auth/phone/login", { telephone, code, recommendCode }, options);
    },
    latestCode(phone: string): string {
      const code = latestCodeFor(t.config.dataDir, phone);
      if (!code) throw new Error(`no code was sent to ${phone}`);
      return code;
    },
    /** Requests a code and logs in with it; returns the session token. */
    async signIn(phone: string, recommendCode = "", options: RequestOptions = {}): Promise<string> {
      const sent = await client.requestCode(phone, options);
      if (sent.json<{ status: string }>().status !== "success") throw new Error(`code not sent: ${sent.body}`);
      const res = await client.login(phone, client.latestCode(phone), recommendCode, options);
      if (res.statusCode !== 200) throw new Error(`login: ${res.statusCode} ${res.body}`);
      return res.json<{ csrf_token: string }>().csrf_token;
    },
  };
  return client;
}
