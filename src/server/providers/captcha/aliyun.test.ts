import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CaptchaConfig } from "./config";
import { ProviderFailure } from "../http";
import { createAliyunCaptcha } from "./aliyun";
import { FakeAliyunCaptcha } from "./aliyun.fake";

const fake = new FakeAliyunCaptcha();
let config: Extract<CaptchaConfig, { provider: "aliyun" }>;
const context = { ip: "10.0.0.1", now: new Date("2026-03-01T08:00:00Z") };

beforeAll(async () => {
  await fake.start();
  config = {
    provider: "aliyun",
    credentials: { accessKeyId: fake.accessKeyId, accessKeySecret: fake.accessKeySecret },
    endpoint: fake.url,
    sceneId: fake.sceneId,
    prefix: fake.prefix,
    region: "cn",
    scriptUrl: "https://o.alicdn.com/captcha-frontend/aliyunCaptcha/AliyunCaptcha.js",
  };
});
afterAll(() => fake.stop());

describe("Aliyun Captcha 2.0 (VerifyIntelligentCaptcha)", () => {
  it("gives the browser the script, scene, prefix and region", () => {
    expect(createAliyunCaptcha(config).settings()).toEqual({ provider: "aliyun", scriptUrl: config.scriptUrl, sceneId: fake.sceneId, prefix: fake.prefix, region: "cn" });
  });

  it("accepts a captchaVerifyParam the provider verifies, and not a second time", async () => {
    const captcha = createAliyunCaptcha(config);
    const param = fake.solve();
    const verdict = await captcha.verify(param, context);
    expect(verdict).toMatchObject({ ok: true });
    expect(await captcha.verify(param, context)).toEqual({ ok: false, reason: "invalid" });
    expect(await captcha.verify("made-up", context)).toEqual({ ok: false, reason: "invalid" });
  });

  it("fails loudly when its requests are signed with the wrong secret", async () => {
    const wrong = createAliyunCaptcha({ ...config, credentials: { ...config.credentials, accessKeySecret: "wrong-secret" } });
    await expect(wrong.verify(fake.solve(), context)).rejects.toBeInstanceOf(ProviderFailure);
    expect(fake.rejected.at(-1)).toBe("SignatureDoesNotMatch");
  });
});
