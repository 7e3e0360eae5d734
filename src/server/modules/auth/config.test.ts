import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../config";

const base = { SESSION_SECRET: "x".repeat(32), DATA_DIR: "/tmp/tollgate-config-test" };

describe("phone login configuration", () => {
  it("defaults to the issue's limits, console SMS and the self-hosted captcha", () => {
    const { auth } = loadConfig(base);
    expect(auth.limits).toEqual({
      codeTtlSeconds: 300,
      codeMaxAttempts: 5,
      resendSeconds: 60,
      perPhonePerHour: 5,
      perPhonePerDay: 10,
      perIpPerHour: 20,
      phonesPerIpPerHour: 10,
      smsDailyBudget: 2000,
      loginFailuresPerIpPerHour: 30,
    });
    expect(auth.sms).toEqual({ provider: "console" });
    expect(auth.captcha).toEqual({ provider: "altcha", maxNumber: 50_000 });
  });

  it("names every variable a chosen provider is missing", () => {
    let caught: unknown;
    try {
      loadConfig({ ...base, SMS_PROVIDER: "tencent", CAPTCHA_PROVIDER: "aliyun", TENCENT_SECRET_ID: "id" });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).problems).toEqual([
      "TENCENT_SECRET_KEY: required when SMS_PROVIDER=tencent",
      "TENCENT_SMS_SDK_APP_ID: required when SMS_PROVIDER=tencent",
      "TENCENT_SMS_SIGN_NAME: required when SMS_PROVIDER=tencent",
      "TENCENT_SMS_TEMPLATE_ID: required when SMS_PROVIDER=tencent",
      "ALIYUN_ACCESS_KEY_ID: required when CAPTCHA_PROVIDER=aliyun",
      "ALIYUN_ACCESS_KEY_SECRET: required when CAPTCHA_PROVIDER=aliyun",
      "ALIYUN_CAPTCHA_SCENE_ID: required when CAPTCHA_PROVIDER=aliyun",
      "ALIYUN_CAPTCHA_PREFIX: required when CAPTCHA_PROVIDER=aliyun",
    ]);
  });

  it("rejects a limit that is not a whole number in range", () => {
    expect(() => loadConfig({ ...base, AUTH_CODE_PER_PHONE_HOUR: "0" })).toThrow(/AUTH_CODE_PER_PHONE_HOUR/);
    expect(() => loadConfig({ ...base, SMS_PROVIDER: "twilio" })).toThrow(/SMS_PROVIDER/);
  });

  it("picks the Aliyun Captcha endpoint of the configured region", () => {
    const { auth } = loadConfig({ ...base, CAPTCHA_PROVIDER: "aliyun", ALIYUN_ACCESS_KEY_ID: "id", ALIYUN_ACCESS_KEY_SECRET: "secret", ALIYUN_CAPTCHA_SCENE_ID: "scene", ALIYUN_CAPTCHA_PREFIX: "p", ALIYUN_CAPTCHA_REGION: "sgp" });
    expect(auth.captcha).toMatchObject({ provider: "aliyun", endpoint: "https://captcha.ap-southeast-1.aliyuncs.com", region: "sgp" });
  });
});
