import type { AlipayConfig, WechatPayConfig } from "../../providers/payment/config";
import { createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import { z } from "zod";
import { parseMoney } from "#shared/money";

/** Environment variables of the money features; config.ts spreads them into its schema. */
export const moneyEnv = {
  REFERRAL_BONUS_PERCENT: z
    .string()
    .regex(/^\d{1,3}(\.\d{1,2})?$/, "must be a percentage such as 5 or 2.5")
    .refine((v) => Number(v) <= 100, "must be at most 100")
    .default("0"),
  OPERATOR_CREDIT_MAX: z.string().regex(/^\d{1,12}(\.\d{1,6})?$/, "must be an amount such as 10000 or 99.50").default("10000"),
  REDEEM_FAILURES_PER_USER_PER_HOUR: z.coerce.number().int().min(1).max(10_000).default(10),
  REDEEM_FAILURES_PER_IP_PER_HOUR: z.coerce.number().int().min(1).max(100_000).default(30),
  ALIPAY_APP_ID: z.string().regex(/^\d{8,32}$/, "must be the digits of an Alipay app id").optional().or(z.literal("").transform(() => undefined)),
  ALIPAY_PRIVATE_KEY: z.string().optional(),
  ALIPAY_PUBLIC_KEY: z.string().optional(),
  ALIPAY_GATEWAY: z.url().default("https://openapi.alipay.com/gateway.do"),
  ALIPAY_NOTIFY_URL: z.url().optional(),
  ALIPAY_RETURN_URL: z.url().optional(),
  WECHATPAY_MCHID: z.string().regex(/^\d{6,32}$/, "must be the digits of a WeChat Pay merchant id").optional().or(z.literal("").transform(() => undefined)),
  WECHATPAY_APPID: z.string().regex(/^\w{6,64}$/, "must be an app id such as wx8888888888888888").optional().or(z.literal("").transform(() => undefined)),
  WECHATPAY_PRIVATE_KEY: z.string().optional(),
  WECHATPAY_CERT_SERIAL: z.string().regex(/^[0-9A-Fa-f]{8,64}$/, "must be the merchant certificate's serial number in hex").optional().or(z.literal("").transform(() => undefined)),
  WECHATPAY_PUBLIC_KEY: z.string().optional(),
  WECHATPAY_PUBLIC_KEY_ID: z.string().regex(/^PUB_KEY_ID_\w+$/, "must be the WeChat Pay public key id, PUB_KEY_ID_…").optional().or(z.literal("").transform(() => undefined)),
  WECHATPAY_APIV3_KEY: z.string().optional(),
  WECHATPAY_BASE_URL: z.url().default("https://api.mch.weixin.qq.com").transform((u) => u.replace(/\/+$/, "")),
  WECHATPAY_NOTIFY_URL: z.url().optional(),
};

type MoneyEnv = z.output<z.ZodObject<typeof moneyEnv>>;

/** PEM as is; a bare base64 key (as Alipay's console shows it) as DER, PKCS#8 or PKCS#1. Literal "\n" become newlines. */
function readKey(kind: "private" | "public", text: string): KeyObject {
  const value = text.replace(/\\n/g, "\n").trim();
  if (value.includes("-----BEGIN")) return kind === "private" ? createPrivateKey(value) : createPublicKey(value);
  const der = Buffer.from(value.replace(/\s+/g, ""), "base64");
  const attempts =
    kind === "private"
      ? [() => createPrivateKey({ key: der, format: "der", type: "pkcs8" }), () => createPrivateKey({ key: der, format: "der", type: "pkcs1" })]
      : [() => createPublicKey({ key: der, format: "der", type: "spki" }), () => createPublicKey({ key: der, format: "der", type: "pkcs1" })];
  for (const attempt of attempts) {
    try {
      return attempt();
    } catch {
      /* try the next encoding */
    }
  }
  throw new Error("not an RSA key in PEM or base64 DER");
}

/** Returns the money settings, or the problems that make them unusable. */
export function moneyConfigFrom(e: MoneyEnv, publicUrl: string) {
  const problems: string[] = [];
  const alipay = alipayConfigFrom(e, publicUrl, problems);
  const wechat = wechatPayConfigFrom(e, publicUrl, problems);
  const [whole = "0", fraction = ""] = e.REFERRAL_BONUS_PERCENT.split(".");
  return {
    config: {
      /** Share of a referred user's first top-up paid to the referrer, in basis points; 0 = off. */
      referralBonusBasisPoints: Number(whole) * 100 + Number(fraction.padEnd(2, "0")),
      redeemFailuresPerUserPerHour: e.REDEEM_FAILURES_PER_USER_PER_HOUR,
      redeemFailuresPerIpPerHour: e.REDEEM_FAILURES_PER_IP_PER_HOUR,
      /** The most one `admin credit` adds without `--force`, in micro-units. */
      operatorCreditMaxMicros: parseMoney(e.OPERATOR_CREDIT_MAX),
      /** Present only when every ALIPAY_* credential is set. */
      alipay,
      /** Present only when every WECHATPAY_* credential is set. */
      wechat,
    },
    problems,
  };
}

/** Alipay's settings when every ALIPAY_* credential is set and readable. */
function alipayConfigFrom(e: MoneyEnv, publicUrl: string, problems: string[]): AlipayConfig | undefined {
  const credentials = { ALIPAY_APP_ID: e.ALIPAY_APP_ID, ALIPAY_PRIVATE_KEY: e.ALIPAY_PRIVATE_KEY, ALIPAY_PUBLIC_KEY: e.ALIPAY_PUBLIC_KEY };
  const set = Object.entries(credentials).filter(([, v]) => v);
  if (set.length === 0) return undefined;
  if (set.length < 3) {
    const missing = Object.entries(credentials).filter(([, v]) => !v).map(([k]) => k);
    problems.push(`${missing.join(", ")}: required when any ALIPAY_* credential is set`);
    return undefined;
  }
  let privateKey: KeyObject | undefined;
  let alipayPublicKey: KeyObject | undefined;
  try {
    privateKey = readKey("private", e.ALIPAY_PRIVATE_KEY!);
  } catch (error) {
    problems.push(`ALIPAY_PRIVATE_KEY: ${(error as Error).message}`);
  }
  try {
    alipayPublicKey = readKey("public", e.ALIPAY_PUBLIC_KEY!);
  } catch (error) {
    problems.push(`ALIPAY_PUBLIC_KEY: ${(error as Error).message}`);
  }
  if (!privateKey || !alipayPublicKey) return undefined;
  return {
    appId: e.ALIPAY_APP_ID!,
    /** The app's RSA private key: signs every request (RSA2). */
    privateKey,
    /** Alipay's RSA public key: verifies notifications and responses. */
    alipayPublicKey,
    gateway: e.ALIPAY_GATEWAY,
    notifyUrl: e.ALIPAY_NOTIFY_URL ?? `${publicUrl}/api/v1/payments/alipay/notify`,
    returnUrl: e.ALIPAY_RETURN_URL ?? `${publicUrl}/console/charge-details`,
  };
}

/** WeChat Pay's settings when every WECHATPAY_* credential is set and readable. */
function wechatPayConfigFrom(e: MoneyEnv, publicUrl: string, problems: string[]): WechatPayConfig | undefined {
  const credentials = {
    WECHATPAY_MCHID: e.WECHATPAY_MCHID,
    WECHATPAY_APPID: e.WECHATPAY_APPID,
    WECHATPAY_PRIVATE_KEY: e.WECHATPAY_PRIVATE_KEY,
    WECHATPAY_CERT_SERIAL: e.WECHATPAY_CERT_SERIAL,
    WECHATPAY_PUBLIC_KEY: e.WECHATPAY_PUBLIC_KEY,
    WECHATPAY_PUBLIC_KEY_ID: e.WECHATPAY_PUBLIC_KEY_ID,
    WECHATPAY_APIV3_KEY: e.WECHATPAY_APIV3_KEY,
  };
  const missing = Object.entries(credentials).filter(([, v]) => !v).map(([k]) => k);
  if (missing.length === Object.keys(credentials).length) return undefined;
  if (missing.length > 0) {
    problems.push(`${missing.join(", ")}: required when any WECHATPAY_* credential is set`);
    return undefined;
  }
  const start = problems.length;
  const key = (name: "WECHATPAY_PRIVATE_KEY" | "WECHATPAY_PUBLIC_KEY") => {
    try {
      return readKey(name === "WECHATPAY_PRIVATE_KEY" ? "private" : "public", e[name]!);
    } catch (error) {
      problems.push(`${name}: ${(error as Error).message}`);
      return undefined;
    }
  };
  const privateKey = key("WECHATPAY_PRIVATE_KEY");
  const platformPublicKey = key("WECHATPAY_PUBLIC_KEY");
  const apiV3Key = Buffer.from(e.WECHATPAY_APIV3_KEY!, "utf8");
  if (apiV3Key.length !== 32) problems.push("WECHATPAY_APIV3_KEY: must be the 32-character APIv3 key set in the merchant platform");
  if (problems.length > start || !privateKey || !platformPublicKey) return undefined;
  return {
    mchId: e.WECHATPAY_MCHID!,
    appId: e.WECHATPAY_APPID!,
    /** The merchant's API private key (apiclient_key.pem): signs every request. */
    privateKey,
    /** Serial number of the merchant API certificate, named in every request's Authorization. */
    certificateSerial: e.WECHATPAY_CERT_SERIAL!,
    /** WeChat Pay's public key and its id: verify every answer and notification. */
    platformPublicKey,
    platformPublicKeyId: e.WECHATPAY_PUBLIC_KEY_ID!,
    /** The APIv3 key, 32 bytes: decrypts notifications. */
    apiV3Key,
    baseUrl: e.WECHATPAY_BASE_URL,
    notifyUrl: e.WECHATPAY_NOTIFY_URL ?? `${publicUrl}/api/v1/payments/wechat/notify`,
  };
}

export type MoneyConfig = ReturnType<typeof moneyConfigFrom>["config"];

