import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authEvents } from "../../db/schema/index";
import { FakeTencentCaptcha } from "../../providers/captcha/tencent.fake";
import { FakeAliyunSms } from "../../providers/sms/aliyun.fake";
import { phoneLoginClient } from "../../testing/phone-login";
import { tempDataDir } from "../../testing/temp-dir";
import { createTestApp, type TestApp } from "../../testing/test-app";

const sms = new FakeAliyunSms();
const captcha = new FakeTencentCaptcha();

beforeAll(async () => {
  await sms.start();
  await captcha.start();
});
afterAll(async () => {
  await sms.stop();
  await captcha.stop();
});

const aliyunSmsEnv = (templateCode = sms.templateCode) => ({
  SMS_PROVIDER: "aliyun",
  ALIYUN_ACCESS_KEY_ID: sms.accessKeyId,
  ALIYUN_ACCESS_KEY_SECRET: sms.accessKeySecret,
  ALIYUN_SMS_SIGN_NAME: sms.signName,
  ALIYUN_SMS_TEMPLATE_CODE: templateCode,
  ALIYUN_SMS_ENDPOINT: sms.url,
});

const tencentCaptchaEnv = (endpoint = captcha.url) => ({
  CAPTCHA_PROVIDER: "tencent",
  TENCENT_SECRET_ID: captcha.secretId,
  TENCENT_SECRET_KEY: captcha.secretKey,
  TENCENT_CAPTCHA_APP_ID: captcha.appId,
  TENCENT_CAPTCHA_APP_SECRET_KEY: captcha.appSecretKey,
  TENCENT_CAPTCHA_ENDPOINT: endpoint,
});

async function withApp(env: Record<string, string>, run: (t: TestApp) => Promise<void>) {
  const t = await createTestApp({ DATA_DIR: tempDataDir(), ALTCHA_MAX_NUMBER: "100", ...env });
  try {
    await run(t);
  } finally {
    await t.close();
  }
}

const codeRequest = (t: TestApp, telephone: string, captchaResult: string, ip = "10.9.0.1") =>
  t.app.inject({ method: "POST", url: "/api/v1/auth/phone/verification_code", payload: { telephone, captchaResult }, remoteAddress: ip });

describe("the login flow on the real providers' protocols", () => {
  it("signs in with Tencent Captcha and Aliyun SMS", async () => {
    const env = {
      ...aliyunSmsEnv(),
      ...tencentCaptchaEnv(),
    };
    await withApp(env, async (t) => {
      expect((await t.app.inject({ url: "/api/v1/auth/captcha" })).json()).toEqual({
        provider: "tencent",
        scriptUrl: "https://turing.captcha.qcloud.com/TJCaptcha.js",
        appId: captcha.appId,
      });
      expect((await t.app.inject({ url: "/api/v1/auth/captcha/altcha/challenge" })).statusCode).toBe(404);

      const ticket = JSON.stringify(captcha.solve());
      const browser = phoneLoginClient(t);
      const requested = await browser.requestCode("13800002001", { captchaResult: ticket, ip: "10.9.0.1" });
      expect(requested.json()).toEqual({ status: "success", message: "code sent successfully" });
      expect(captcha.verifications.at(-1)).toMatchObject({ userIp: "10.9.0.1", code: 1 });
      const sent = sms.messages.at(-1);
      expect(sent?.phone).toBe("13800002001");
      const login = await browser.login("13800002001", sent!.templateParam.code!);
      expect(login.statusCode).toBe(200);

      expect((await codeRequest(t, "13800002002", ticket)).json()).toMatchObject({ status: "failed", message: "captcha verification failed, please try again" });
    });
  });

  it("answers 502 when the SMS is not accepted, and takes back everything the request recorded", async () => {
    await withApp({ ...aliyunSmsEnv("SMS_NOT_APPROVED"), AUTH_CODE_PER_IP_HOUR: "2" }, async (t) => {
      const client = phoneLoginClient(t);
      const captchaResult = await client.solveCaptcha();
      for (let i = 0; i < 3; i++) {
        // Neither the captcha, nor the phone's cooldown, nor the IP's count remember a failed send.
        const res = await codeRequest(t, "13800002003", captchaResult);
        expect(res.statusCode).toBe(502);
        expect(res.json()).toEqual({ code: "sms_send_failed", message: "failed to send code, please retry later" });
      }
      expect((await client.login("13800002003", "000000")).statusCode).toBe(400);
      const refusals = await t.database.db.select().from(authEvents).where(eq(authEvents.reason, "send_failed"));
      expect(refusals).toHaveLength(3);
    });
  });

  it("asks the captcha provider at most 100 times an hour in vain from one address", async () => {
    const env = {
      ...tencentCaptchaEnv(),
    };
    await withApp(env, async (t) => {
      const forged = JSON.stringify({ ticket: "forged", randstr: "x" });
      const asked = captcha.verifications.length;
      for (let i = 0; i < 100; i++) {
        expect((await codeRequest(t, `1380000${String(3000 + i)}`, forged, "10.9.0.7")).json()).toMatchObject({ status: "failed", reason: "captcha_failed" });
      }
      const refused = await codeRequest(t, "13800004000", JSON.stringify(captcha.solve()), "10.9.0.7");
      expect(refused.statusCode).toBe(429);
      expect(captcha.verifications.length - asked).toBe(100);
      // Another address is not held back.
      expect((await codeRequest(t, "13800004001", JSON.stringify(captcha.solve()), "10.9.0.8")).json()).toMatchObject({ status: "success" });
    });
  });

  it("answers 503 when the captcha provider cannot be reached, counting nothing", async () => {
    const env = {
      ...tencentCaptchaEnv("http://127.0.0.1:9"),
      AUTH_CODE_PER_IP_HOUR: "1",
    };
    await withApp(env, async (t) => {
      for (let i = 0; i < 2; i++) {
        const res = await codeRequest(t, "13800002004", JSON.stringify(captcha.solve()));
        expect(res.statusCode).toBe(503);
        expect(res.json()).toEqual({ code: "captcha_unavailable", message: "captcha service is unavailable, please retry later" });
      }
    });
  });
});
