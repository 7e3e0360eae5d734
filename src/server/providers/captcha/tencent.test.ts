import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CaptchaConfig } from "./config";
import { ProviderFailure } from "../http";
import { createTencentCaptcha } from "./tencent";
import { FakeTencentCaptcha } from "./tencent.fake";

const fake = new FakeTencentCaptcha();
let config: Extract<CaptchaConfig, { provider: "tencent" }>;
const context = { ip: "10.0.0.7", now: new Date("2026-03-01T08:00:00Z") };

beforeAll(async () => {
  await fake.start();
  config = {
    provider: "tencent",
    credentials: { secretId: fake.secretId, secretKey: fake.secretKey },
    endpoint: fake.url,
    appId: fake.appId,
    appSecretKey: fake.appSecretKey,
    scriptUrl: "https://turing.captcha.qcloud.com/TJCaptcha.js",
  };
});
afterAll(() => fake.stop());

describe("Tencent Captcha (DescribeCaptchaResult)", () => {
  it("gives the browser the script and the CaptchaAppId", () => {
    expect(createTencentCaptcha(config).settings()).toEqual({ provider: "tencent", scriptUrl: config.scriptUrl, appId: fake.appId });
  });

  it("accepts a ticket the provider verifies, with the user's IP, and not a second time", async () => {
    const captcha = createTencentCaptcha(config);
    const result = JSON.stringify(fake.solve());
    expect(await captcha.verify(result, context)).toMatchObject({ ok: true });
    expect(fake.verifications.at(-1)).toMatchObject({ userIp: "10.0.0.7", code: 1 });
    expect(await captcha.verify(result, context)).toEqual({ ok: false, reason: "invalid" });
    expect(await captcha.verify(JSON.stringify({ ...fake.solve(), randstr: "@wrong" }), context)).toEqual({ ok: false, reason: "invalid" });
  });

  it("refuses a result that is not {ticket, randstr} JSON without asking the provider", async () => {
    const asked = fake.verifications.length;
    for (const result of ["", "ticket", '{"randstr":"x"}']) {
      expect(await createTencentCaptcha(config).verify(result, context)).toEqual({ ok: false, reason: "malformed" });
    }
    expect(fake.verifications.length).toBe(asked);
  });

  it("fails loudly when its requests are signed with the wrong secret key", async () => {
    const wrong = createTencentCaptcha({ ...config, credentials: { ...config.credentials, secretKey: "wrong" } });
    await expect(wrong.verify(JSON.stringify(fake.solve()), context)).rejects.toBeInstanceOf(ProviderFailure);
    expect(fake.rejected.at(-1)).toBe("AuthFailure.SignatureFailure");
  });

  it("treats a wrong app secret key as its own failure, not the user's", async () => {
    const wrong = createTencentCaptcha({ ...config, appSecretKey: "not-the-app-secret" });
    await expect(wrong.verify(JSON.stringify(fake.solve()), context)).rejects.toBeInstanceOf(ProviderFailure);
    expect(fake.verifications.at(-1)?.code).toBe(100);
  });
});
