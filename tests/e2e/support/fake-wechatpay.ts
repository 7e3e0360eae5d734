/**
 * The e2e server's WeChat Pay: a local fake (src/server/providers/payment/wechatpay.fake.ts)
 * started in the server's process, with a fresh merchant key pair. Its address is left in the
 * data folder, so a spec can play the phone that scans and pays. E2E_FAKE_WECHATPAY=0 leaves
 * WeChat Pay unconfigured.
 */
import { generateKeyPairSync } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { FakeWechatPay } from "../../../src/server/providers/payment/wechatpay.fake";
import { E2E_DATA_DIR } from "./e2e-env";

export const FAKE_WECHATPAY_FILE = path.join(E2E_DATA_DIR, "fake-wechatpay.json");

export async function fakeWechatPayEnv(appBase: string): Promise<Record<string, string>> {
  if (process.env.E2E_FAKE_WECHATPAY === "0") return {};
  const merchantKeys = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const certificateSerial = "6B8D2E0F4A1C3B5D7E9F0A2C4E6B8D0F1A3C5E7B";
  const fake = await new FakeWechatPay({ publicKey: merchantKeys.publicKey, certificateSerial }).start();
  fs.writeFileSync(FAKE_WECHATPAY_FILE, JSON.stringify({ baseUrl: fake.baseUrl }), { mode: 0o600 });
  return {
    WECHATPAY_MCHID: fake.mchId,
    WECHATPAY_APPID: fake.appId,
    WECHATPAY_PRIVATE_KEY: merchantKeys.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    WECHATPAY_CERT_SERIAL: certificateSerial,
    WECHATPAY_PUBLIC_KEY: fake.publicKeyPem,
    WECHATPAY_PUBLIC_KEY_ID: fake.publicKeyId,
    WECHATPAY_APIV3_KEY: fake.apiV3Key,
    WECHATPAY_BASE_URL: fake.baseUrl,
    WECHATPAY_NOTIFY_URL: `${appBase}/api/v1/payments/wechat/notify`,
  };
}

/** The phone that scans the QR code and pays the order. */
export async function scanAndPay(orderId: string): Promise<void> {
  const { baseUrl } = JSON.parse(fs.readFileSync(FAKE_WECHATPAY_FILE, "utf8")) as { baseUrl: string };
  const response = await fetch(`${baseUrl}/fake/scan-and-pay?out_trade_no=${encodeURIComponent(orderId)}`, { method: "POST" });
  if (!response.ok) throw new Error(`the fake WeChat Pay refused to pay ${orderId}: ${response.status}`);
}
