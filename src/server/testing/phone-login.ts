import type { Challenge } from "altcha-lib";
import type { LightMyRequestResponse } from "fastify";
import { solveAltchaChallenge } from "./altcha";
import { latestCodeFor } from "./sms-outbox";
import type { TestApp } from "./test-app";

export interface RequestOptions {
  ip?: string;
  userAgent?: string;
  headers?: Record<string, string>;
}

function inject(t: TestApp, method: "GET" | "POST", url: string, payload: object | undefined, options: RequestOptions = {}) {
  return t.app.inject({
    method,
    url,
    payload,
    remoteAddress: options.ip ?? "127.0.0.1",
    headers: { "user-agent": options.userAgent ?? "vitest", ...options.headers },
  });
}

/** The phone login as a browser drives it against the app under test (self-hosted captcha, console SMS). */
export function phoneLoginClient(t: TestApp) {
  const client = {
    async solveCaptcha(options: RequestOptions = {}): Promise<string> {
      const res = await inject(t, "GET", "/api/v1/auth/captcha/altcha/challenge", undefined, options);
      if (res.statusCode !== 200) throw new Error(`challenge: ${res.statusCode} ${res.body}`);
      return solveAltchaChallenge(res.json<Challenge>());
    },
    async requestCode(telephone: string, options: RequestOptions & { captchaResult?: string } = {}): Promise<LightMyRequestResponse> {
      const captchaResult = options.captchaResult ?? (await client.solveCaptcha(options));
      return inject(t, "POST", "/api/v1/auth/phone/verification_code", { telephone, captchaResult }, options);
    },
    login(telephone: string, code: string, recommendCode = "", options: RequestOptions = {}): Promise<LightMyRequestResponse> {
      return inject(t, "POST", "/api/v1/auth/phone/login", { telephone, code, recommendCode }, options);
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
