import { z } from "zod";

export const CAPTCHA_PROVIDERS = ["altcha", "aliyun", "tencent"] as const;
export type CaptchaProviderId = (typeof CAPTCHA_PROVIDERS)[number];

/**
 * GET /api/v1/auth/captcha: what the browser needs to load and run the configured captcha.
 *
 * What the code request then sends as `captchaResult`:
 * - altcha: the base64 payload the `altcha` widget emits (`verify()` → `payload`), proving work on
 *   a challenge fetched from `challengeUrl` (a path on this server);
 * - aliyun: the `captchaVerifyParam` string Aliyun Captcha 2.0 hands to `captchaVerifyCallback`;
 * - tencent: the JSON string `{"ticket":"…","randstr":"…"}` built from the TencentCaptcha callback.
 * Every result is accepted once: the server refuses a replayed one.
 */
export const captchaSettingsSchema = z.discriminatedUnion("provider", [
  z.object({
    provider: z.literal("altcha"),
    challengeUrl: z.string().describe("Where the widget fetches a proof-of-work challenge"),
  }),
  z.object({
    provider: z.literal("aliyun"),
    scriptUrl: z.string(),
    sceneId: z.string(),
    prefix: z.string().describe("The account's identity prefix for window.AliyunCaptchaConfig"),
    region: z.enum(["cn", "sgp"]),
  }),
  z.object({
    provider: z.literal("tencent"),
    scriptUrl: z.string(),
    appId: z.string().describe("CaptchaAppId, the first argument of new TencentCaptcha()"),
  }),
]);

export type CaptchaSettings = z.infer<typeof captchaSettingsSchema>;

/** The result string for Tencent Captcha. */
export const tencentCaptchaResultSchema = z.object({ ticket: z.string().min(1), randstr: z.string() });
