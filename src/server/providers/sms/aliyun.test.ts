import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SmsConfig } from "./config";
import { signAcs3 } from "../signing/acs3";
import { createAliyunSms } from "./aliyun";
import { FakeAliyunSms } from "./aliyun.fake";
import { SmsSendError } from "./types";

const fake = new FakeAliyunSms();
let config: Extract<SmsConfig, { provider: "aliyun" }>;
const sms = { phone: "13800138000", code: "493021", ttlMinutes: 5, now: new Date("2026-03-01T08:00:00Z"), log: pino({ level: "silent" }) };

beforeAll(async () => {
  await fake.start();
  config = {
    provider: "aliyun",
    credentials: { accessKeyId: fake.accessKeyId, accessKeySecret: fake.accessKeySecret },
    endpoint: fake.url,
    signName: fake.signName,
    templateCode: fake.templateCode,
  };
});
afterAll(() => fake.stop());

describe("Aliyun SMS (Dysmsapi SendSms, ACS3-HMAC-SHA256)", () => {
  it("delivers the code with the approved sign name and template", async () => {
    await createAliyunSms(config).sendVerificationCode(sms);
    expect(fake.messages.at(-1)).toEqual({ phone: "13800138000", signName: fake.signName, templateCode: fake.templateCode, templateParam: { code: "493021" } });
  });

  it("delivers a low-balance alert with its own approved template, and refuses to send one without it", async () => {
    const alert = { phone: "13800138000", balance: "4.20", threshold: "5.00", now: sms.now, log: sms.log };
    await createAliyunSms(config).sendLowBalanceAlert({ ...alert, template: fake.alertTemplateCode });
    expect(fake.messages.at(-1)).toEqual({
      phone: "13800138000",
      signName: fake.signName,
      templateCode: fake.alertTemplateCode,
      templateParam: { balance: "4.20", threshold: "5.00" },
    });
    await expect(createAliyunSms(config).sendLowBalanceAlert({ ...alert, template: null })).rejects.toMatchObject({ providerCode: "no_template" });
  });

  it("delivers a lot-expiry reminder with its own approved template, and refuses to send one without it", async () => {
    const reminder = { phone: "13800138000", packageName: "Starter", toolName: "QR code", unitsLeft: "5 calls", expiresAt: "2026-12-31 14:00:00 +08:00", now: sms.now, log: sms.log };
    await createAliyunSms(config).sendLotExpiryReminder({ ...reminder, template: fake.lotTemplateCode });
    expect(fake.messages.at(-1)).toEqual({
      phone: "13800138000",
      signName: fake.signName,
      templateCode: fake.lotTemplateCode,
      templateParam: { package: "Starter", tool: "QR code", units: "5 calls", expires: "2026-12-31 14:00:00 +08:00" },
    });
    await expect(createAliyunSms(config).sendLotExpiryReminder({ ...reminder, template: null })).rejects.toMatchObject({ providerCode: "no_template" });
  });

  it("is refused with SignatureDoesNotMatch when signed with the wrong secret", async () => {
    const sent = fake.messages.length;
    const wrong = createAliyunSms({ ...config, credentials: { ...config.credentials, accessKeySecret: `${config.credentials.accessKeySecret}x` } });
    await expect(wrong.sendVerificationCode(sms)).rejects.toMatchObject({ name: "SmsSendError", providerCode: "SignatureDoesNotMatch" });
    expect(fake.messages.length).toBe(sent);
  });

  it("is refused when a signed request is altered on the way", async () => {
    const { url, headers } = signAcs3({
      endpoint: fake.url,
      action: "SendSms",
      version: "2017-05-25",
      params: { PhoneNumbers: "13800138000", SignName: fake.signName, TemplateCode: fake.templateCode, TemplateParam: '{"code":"111111"}' },
      credentials: config.credentials,
      now: sms.now,
    });
    const altered = await fetch(url.replace("13800138000", "13900139000"), { method: "POST", headers });
    expect(altered.status).toBe(400);
    expect(await altered.json()).toMatchObject({ Code: "SignatureDoesNotMatch" });
    const replayed = await fetch(url, { method: "POST", headers });
    expect(await replayed.json()).toMatchObject({ Code: "OK" });
    const again = await fetch(url, { method: "POST", headers });
    expect(await again.json()).toMatchObject({ Code: "SignatureNonceUsed" });
  });

  it("reports the provider's refusal, such as an unapproved template", async () => {
    const error = await createAliyunSms({ ...config, templateCode: "SMS_000" }).sendVerificationCode(sms).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SmsSendError);
    expect(error).toMatchObject({ providerCode: "isv.SMS_TEMPLATE_ILLEGAL" });
    expect(String(error)).not.toContain(sms.code);
  });
});
