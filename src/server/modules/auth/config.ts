import type { CaptchaConfig } from "../../providers/captcha/config";
import type { SmsConfig } from "../../providers/sms/config";
import { z } from "zod";
import { CAPTCHA_PROVIDERS } from "#shared/captcha";
import { SITE_CONFIG_DEFAULTS } from "#shared/site-config";

const count = (max: number, fallback: number, min = 1) => z.coerce.number().int().min(min).max(max).default(fallback);
const optionalText = z.string().optional().or(z.literal("").transform(() => undefined));

/** Environment variables of phone login, its limits and its providers; config.ts spreads them into its schema. */
export const authEnv = {
  AUTH_CODE_TTL_SECONDS: count(3600, 300, 60),
  AUTH_CODE_MAX_ATTEMPTS: count(100, 5),
  AUTH_CODE_RESEND_SECONDS: count(3600, SITE_CONFIG_DEFAULTS.codeResendSeconds, 0),
  AUTH_CODE_PER_PHONE_HOUR: count(1_000_000, 5),
  AUTH_CODE_PER_PHONE_DAY: count(1_000_000, 10),
  AUTH_CODE_PER_IP_HOUR: count(1_000_000, 20),
  AUTH_CODE_PHONES_PER_IP_HOUR: count(1_000_000, 10),
  AUTH_SMS_DAILY_BUDGET: count(100_000_000, 2000),
  AUTH_LOGIN_FAILURES_PER_IP_HOUR: count(1_000_000, 30),

  SMS_PROVIDER: z.enum(["console", "aliyun", "tencent"]).default("console"),
  CAPTCHA_PROVIDER: z.enum(CAPTCHA_PROVIDERS).default("altcha"),
  ALTCHA_MAX_NUMBER: count(10_000_000, 50_000, 10),

  ALIYUN_ACCESS_KEY_ID: optionalText,
  ALIYUN_ACCESS_KEY_SECRET: optionalText,
  ALIYUN_SMS_SIGN_NAME: optionalText,
  ALIYUN_SMS_TEMPLATE_CODE: optionalText,
  ALIYUN_SMS_ENDPOINT: z.url().default("https://dysmsapi.aliyuncs.com"),
  ALIYUN_CAPTCHA_SCENE_ID: optionalText,
  ALIYUN_CAPTCHA_PREFIX: optionalText,
  ALIYUN_CAPTCHA_REGION: z.enum(["cn", "sgp"]).default("cn"),
  ALIYUN_CAPTCHA_ENDPOINT: z.url().optional(),
  ALIYUN_CAPTCHA_SCRIPT_URL: z.url().default("https://o.alicdn.com/captcha-frontend/aliyunCaptcha/AliyunCaptcha.js"),

  TENCENT_SECRET_ID: optionalText,
  TENCENT_SECRET_KEY: optionalText,
  TENCENT_SMS_SDK_APP_ID: optionalText,
  TENCENT_SMS_SIGN_NAME: optionalText,
  TENCENT_SMS_TEMPLATE_ID: optionalText,
  TENCENT_SMS_REGION: z.string().min(1).default("ap-guangzhou"),
  TENCENT_SMS_ENDPOINT: z.url().default("https://sms.tencentcloudapi.com"),
  TENCENT_CAPTCHA_APP_ID: z.string().regex(/^\d+$/, "must be the digits of a CaptchaAppId").optional().or(z.literal("").transform(() => undefined)),
  TENCENT_CAPTCHA_APP_SECRET_KEY: optionalText,
  TENCENT_CAPTCHA_ENDPOINT: z.url().default("https://captcha.tencentcloudapi.com"),
  TENCENT_CAPTCHA_SCRIPT_URL: z.url().default("https://turing.captcha.qcloud.com/TJCaptcha.js"),
};

type AuthEnv = z.output<z.ZodObject<typeof authEnv>>;

const ALIYUN_CAPTCHA_ENDPOINTS = {
  cn: "https://captcha.cn-shanghai.aliyuncs.com",
  sgp: "https://captcha.ap-southeast-1.aliyuncs.com",
} as const;

/** Reads the variables a chosen provider needs; a missing one is a problem named after it. */
function requireAll<K extends keyof AuthEnv>(e: AuthEnv, why: string, names: K[], problems: string[]): Record<K, string> {
  const values = {} as Record<K, string>;
  for (const name of names) {
    const value = e[name];
    if (typeof value === "string" && value !== "") values[name] = value;
    else problems.push(`${String(name)}: required when ${why}`);
  }
  return values;
}

export function authConfigFrom(e: AuthEnv) {
  const problems: string[] = [];
  // Each limit is counted in the database over a sliding window, so every server process sees the same count.
  const limits = {
    codeTtlSeconds: e.AUTH_CODE_TTL_SECONDS,
    codeMaxAttempts: e.AUTH_CODE_MAX_ATTEMPTS,
    resendSeconds: e.AUTH_CODE_RESEND_SECONDS,
    perPhonePerHour: e.AUTH_CODE_PER_PHONE_HOUR,
    perPhonePerDay: e.AUTH_CODE_PER_PHONE_DAY,
    perIpPerHour: e.AUTH_CODE_PER_IP_HOUR,
    phonesPerIpPerHour: e.AUTH_CODE_PHONES_PER_IP_HOUR,
    smsDailyBudget: e.AUTH_SMS_DAILY_BUDGET,
    /** Wrong codes one IP may send in any hour before its logins are refused (429) for the rest of it. */
    loginFailuresPerIpPerHour: e.AUTH_LOGIN_FAILURES_PER_IP_HOUR,
  };

  return { config: { limits, sms: smsConfigFrom(e, problems), captcha: captchaConfigFrom(e, problems) }, problems };
}

/** The SMS provider chosen and what it needs. */
function smsConfigFrom(e: AuthEnv, problems: string[]): SmsConfig {
  if (e.SMS_PROVIDER === "aliyun") {
    const v = requireAll(e, "SMS_PROVIDER=aliyun", ["ALIYUN_ACCESS_KEY_ID", "ALIYUN_ACCESS_KEY_SECRET", "ALIYUN_SMS_SIGN_NAME", "ALIYUN_SMS_TEMPLATE_CODE"], problems);
    return {
      provider: "aliyun" as const,
      credentials: { accessKeyId: v.ALIYUN_ACCESS_KEY_ID, accessKeySecret: v.ALIYUN_ACCESS_KEY_SECRET },
      endpoint: e.ALIYUN_SMS_ENDPOINT,
      signName: v.ALIYUN_SMS_SIGN_NAME,
      templateCode: v.ALIYUN_SMS_TEMPLATE_CODE,
    };
  }
  if (e.SMS_PROVIDER === "tencent") {
    const v = requireAll(
      e,
      "SMS_PROVIDER=tencent",
      ["TENCENT_SECRET_ID", "TENCENT_SECRET_KEY", "TENCENT_SMS_SDK_APP_ID", "TENCENT_SMS_SIGN_NAME", "TENCENT_SMS_TEMPLATE_ID"],
      problems,
    );
    return {
      provider: "tencent" as const,
      credentials: { secretId: v.TENCENT_SECRET_ID, secretKey: v.TENCENT_SECRET_KEY },
      endpoint: e.TENCENT_SMS_ENDPOINT,
      region: e.TENCENT_SMS_REGION,
      sdkAppId: v.TENCENT_SMS_SDK_APP_ID,
      signName: v.TENCENT_SMS_SIGN_NAME,
      templateId: v.TENCENT_SMS_TEMPLATE_ID,
    };
  }
  return { provider: "console" as const };
}

/** The captcha provider chosen and what it needs. */
function captchaConfigFrom(e: AuthEnv, problems: string[]): CaptchaConfig {
  if (e.CAPTCHA_PROVIDER === "aliyun") {
    const v = requireAll(e, "CAPTCHA_PROVIDER=aliyun", ["ALIYUN_ACCESS_KEY_ID", "ALIYUN_ACCESS_KEY_SECRET", "ALIYUN_CAPTCHA_SCENE_ID", "ALIYUN_CAPTCHA_PREFIX"], problems);
    return {
      provider: "aliyun" as const,
      credentials: { accessKeyId: v.ALIYUN_ACCESS_KEY_ID, accessKeySecret: v.ALIYUN_ACCESS_KEY_SECRET },
      endpoint: e.ALIYUN_CAPTCHA_ENDPOINT ?? ALIYUN_CAPTCHA_ENDPOINTS[e.ALIYUN_CAPTCHA_REGION],
      sceneId: v.ALIYUN_CAPTCHA_SCENE_ID,
      prefix: v.ALIYUN_CAPTCHA_PREFIX,
      region: e.ALIYUN_CAPTCHA_REGION,
      scriptUrl: e.ALIYUN_CAPTCHA_SCRIPT_URL,
    };
  }
  if (e.CAPTCHA_PROVIDER === "tencent") {
    const v = requireAll(e, "CAPTCHA_PROVIDER=tencent", ["TENCENT_SECRET_ID", "TENCENT_SECRET_KEY", "TENCENT_CAPTCHA_APP_ID", "TENCENT_CAPTCHA_APP_SECRET_KEY"], problems);
    return {
      provider: "tencent" as const,
      credentials: { secretId: v.TENCENT_SECRET_ID, secretKey: v.TENCENT_SECRET_KEY },
      endpoint: e.TENCENT_CAPTCHA_ENDPOINT,
      appId: v.TENCENT_CAPTCHA_APP_ID,
      appSecretKey: v.TENCENT_CAPTCHA_APP_SECRET_KEY,
      scriptUrl: e.TENCENT_CAPTCHA_SCRIPT_URL,
    };
  }
  return { provider: "altcha" as const, maxNumber: e.ALTCHA_MAX_NUMBER };
}

export type AuthConfig = ReturnType<typeof authConfigFrom>["config"];
export type AuthLimits = AuthConfig["limits"];
