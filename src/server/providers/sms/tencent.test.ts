import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SmsConfig } from "./config";
import { signTc3 } from "../signing/tc3";
import { createTencentSms } from "./tencent";
import { FakeTencentSms } from "./tencent.fake";

const fake = new FakeTencentSms();
let config: Extract<SmsConfig, { provider: "tencent" }>;
const sms = { phone: "13800138000", code: "730214", ttlMinutes: 5, now: new Date("2026-03-01T23:59:59Z"), log: pino({ level: "silent" }) };

beforeAll(async () => {
  await fake.start();
  config = {
    provider: "tencent",
    credentials: { secretId: fake.secretId, secretKey: fake.secretKey },
    endpoint: fake.url,
    region: "ap-guangzhou",
    sdkAppId: fake.sdkAppId,
    signName: fake.signName,
    templateId: fake.templateId,
  };
});
afterAll(() => fake.stop());

describe("Tencent Cloud SMS (SendSms, TC3-HMAC-SHA256)", () => {
  it("delivers a low-balance alert with its own approved template: {1} the balance, {2} the threshold", async () => {
    const alert = { phone: "13800138000", balance: "4.20", threshold: "5.00", now: sms.now, log: sms.log };
    await createTencentSms(config).sendLowBalanceAlert({ ...alert, template: fake.alertTemplateId });
    expect(fake.messages.at(-1)).toEqual({ phone: "13800138000", signName: fake.signName, templateId: fake.alertTemplateId, params: ["4.20", "5.00"] });
    await expect(createTencentSms(config).sendLowBalanceAlert({ ...alert, template: null })).rejects.toMatchObject({ providerCode: "no_template" });
  });

  it("delivers a lot-expiry reminder with its own approved template: {1} the package, {2} the tool, {3} the units left, {4} the expiry", async () => {
    const reminder = { phone: "13800138000", packageName: "Starter", toolName: "QR code", unitsLeft: "5 calls", expiresAt: "2026-12-31 14:00:00 +08:00", now: sms.now, log: sms.log };
    await createTencentSms(config).sendLotExpiryReminder({ ...reminder, template: fake.lotTemplateId });
    expect(fake.messages.at(-1)).toEqual({ phone: "13800138000", signName: fake.signName, templateId: fake.lotTemplateId, params: ["Starter", "QR code", "5 calls", "2026-12-31 14:00:00 +08:00"] });
    await expect(createTencentSms(config).sendLotExpiryReminder({ ...reminder, template: null })).rejects.toMatchObject({ providerCode: "no_template" });
  });

  it("delivers the code and its validity in minutes as the template's parameters", async () => {
    await createTencentSms(config).sendVerificationCode(sms);
    expect(fake.messages.at(-1)).toEqual({ phone: "13800138000", signName: fake.signName, templateId: fake.templateId, params: ["730214", "5"] });
  });

  it("is refused with AuthFailure.SignatureFailure when signed with the wrong secret key", async () => {
    const sent = fake.messages.length;
    const wrong = createTencentSms({ ...config, credentials: { ...config.credentials, secretKey: "not-the-secret-key" } });
    await expect(wrong.sendVerificationCode(sms)).rejects.toMatchObject({ providerCode: "AuthFailure.SignatureFailure" });
    expect(fake.rejected.at(-1)).toBe("AuthFailure.SignatureFailure");
    expect(fake.messages.length).toBe(sent);
  });

  it("is refused when the signed body is altered on the way", async () => {
    const payload = JSON.stringify({ PhoneNumberSet: ["+8613800138000"], SmsSdkAppId: fake.sdkAppId, SignName: fake.signName, TemplateId: fake.templateId, TemplateParamSet: ["1", "5"] });
    const headers = signTc3({ endpoint: fake.url, service: "sms", action: "SendSms", version: "2021-01-11", region: "ap-guangzhou", payload, credentials: config.credentials, now: sms.now });
    const res = await fetch(fake.url, { method: "POST", headers, body: payload.replace("+8613800138000", "+8613900139000") });
    expect(await res.json()).toMatchObject({ Response: { Error: { Code: "AuthFailure.SignatureFailure" } } });
  });

  it("reports an unapproved sign name as the provider's error", async () => {
    await expect(createTencentSms({ ...config, signName: "Other" }).sendVerificationCode(sms)).rejects.toMatchObject({
      providerCode: "FailedOperation.SignatureIncorrectOrUnapproved",
    });
  });
});
