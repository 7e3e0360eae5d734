import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../config";

const base = { NODE_ENV: "test", SESSION_SECRET: "s".repeat(32), DATA_DIR: "/tmp/tollgate-test-data" } as const;
const keys = generateKeyPairSync("rsa", { modulusLength: 2048 });
const privatePem = keys.privateKey.export({ type: "pkcs8", format: "pem" }).toString();
const publicBase64 = keys.publicKey.export({ type: "spki", format: "der" }).toString("base64");

describe("money configuration", () => {
  it("leaves payment providers and the referral bonus off by default", () => {
    const { money } = loadConfig({ ...base });
    expect(money.alipay).toBeUndefined();
    expect(money.referralBonusBasisPoints).toBe(0);
    expect(money.redeemFailuresPerUserPerHour).toBe(10);
    expect(money.redeemFailuresPerIpPerHour).toBe(30);
  });

  it("reads a referral percentage exactly", () => {
    expect(loadConfig({ ...base, REFERRAL_BONUS_PERCENT: "2.5" }).money.referralBonusBasisPoints).toBe(250);
    expect(loadConfig({ ...base, REFERRAL_BONUS_PERCENT: "100" }).money.referralBonusBasisPoints).toBe(10_000);
    expect(() => loadConfig({ ...base, REFERRAL_BONUS_PERCENT: "101" })).toThrow(/REFERRAL_BONUS_PERCENT/);
    expect(() => loadConfig({ ...base, REFERRAL_BONUS_PERCENT: "5%" })).toThrow(/REFERRAL_BONUS_PERCENT/);
  });

  it("enables Alipay with keys in PEM or bare base64, deriving the notify and return addresses", () => {
    const { money } = loadConfig({
      ...base,
      PUBLIC_URL: "https://api.example.com/",
      ALIPAY_APP_ID: "2021000000000001",
      ALIPAY_PRIVATE_KEY: privatePem,
      ALIPAY_PUBLIC_KEY: publicBase64,
    });
    expect(money.alipay).toMatchObject({
      appId: "2021000000000001",
      gateway: "https://openapi.alipay.com/gateway.do",
      notifyUrl: "https://api.example.com/api/v1/payments/alipay/notify",
      returnUrl: "https://api.example.com/console/charge-details",
    });
  });

  it("fails fast, naming the variables, on a partial or broken Alipay setup", () => {
    expect(() => loadConfig({ ...base, ALIPAY_APP_ID: "2021000000000001" })).toThrow(/ALIPAY_PRIVATE_KEY, ALIPAY_PUBLIC_KEY: required/);
    let error: unknown;
    try {
      loadConfig({ ...base, ALIPAY_APP_ID: "2021000000000001", ALIPAY_PRIVATE_KEY: "not a key", ALIPAY_PUBLIC_KEY: publicBase64 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([expect.stringMatching(/^ALIPAY_PRIVATE_KEY: /)]);
  });
});
