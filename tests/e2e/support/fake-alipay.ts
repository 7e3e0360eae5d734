/**
 * The e2e server's Alipay: a local fake (src/server/providers/payment/alipay.fake.ts) started in
 * the server's process, with a fresh app key pair. E2E_FAKE_ALIPAY=0 leaves Alipay unconfigured.
 */
import { generateKeyPairSync } from "node:crypto";
import { FakeAlipay } from "../../../src/server/providers/payment/alipay.fake";

export async function fakeAlipayEnv(appBase: string): Promise<Record<string, string>> {
  if (process.env.E2E_FAKE_ALIPAY === "0") return {};
  const appKeys = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const fake = await new FakeAlipay(appKeys.publicKey).start();
  return {
    ALIPAY_APP_ID: fake.appId,
    ALIPAY_PRIVATE_KEY: appKeys.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    ALIPAY_PUBLIC_KEY: fake.alipayPublicKeyPem,
    ALIPAY_GATEWAY: fake.gatewayUrl,
    ALIPAY_NOTIFY_URL: `${appBase}/api/v1/payments/alipay/notify`,
    ALIPAY_RETURN_URL: `${appBase}/console/charge-details`,
  };
}
