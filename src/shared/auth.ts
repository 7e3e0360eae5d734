import { z } from "zod";
import { userText } from "./text";

/** POST /api/v1/auth/phone/verification_code. The phone may carry spaces and a +86 / 0086 / 86 prefix. */
export const codeRequestSchema = z.strictObject({
  telephone: userText().max(32),
  captchaResult: userText().max(8192).describe("What the captcha produced; its format per provider is in src/shared/captcha.ts"),
});

/**
 * `failed` is a refusal the user can act on (wait, or solve the captcha again); `message` says
 * what to do and, for a limit, when to retry. It never reveals whether the phone is registered.
 */
export const CODE_REFUSAL_REASONS = ["captcha_failed", "cooldown", "phone_hourly", "phone_daily", "sms_budget"] as const;
export type CodeRefusalReason = (typeof CODE_REFUSAL_REASONS)[number];

export const codeResponseSchema = z.object({
  message: z.string(),
  status: z.enum(["success", "failed"]),
  reason: z.enum(CODE_REFUSAL_REASONS).optional().describe("Why a code was not sent, for clients that word it themselves"),
  retryAfterSeconds: z.number().int().optional().describe("When a refusal for a limit ends"),
});

/** POST /api/v1/auth/phone/login. Login and sign-up are one call; `recommendCode` counts only at sign-up. */
export const loginRequestSchema = z.strictObject({
  telephone: userText().max(32),
  code: userText().max(16),
  recommendCode: userText().max(64).nullish(),
});

export const loginResponseSchema = z.object({
  csrf_token: z.string().describe("Session token for `Authorization: Bearer …`, valid 7 days"),
});

export const logoutResponseSchema = z.object({ ok: z.literal(true) });

export type CodeRequest = z.infer<typeof codeRequestSchema>;
export type CodeResponse = z.infer<typeof codeResponseSchema>;
export type LoginRequest = z.infer<typeof loginRequestSchema>;
export type LoginResponse = z.infer<typeof loginResponseSchema>;

export const AUTH_ERROR_CODES = {
  invalidPhone: "invalid_phone",
  invalidCode: "invalid_code",
  loginLimited: "login_limited",
  accountDisabled: "account_disabled",
  smsFailed: "sms_send_failed",
  captchaUnavailable: "captcha_unavailable",
} as const;

export const ACCOUNT_DISABLED_MESSAGE = "this account has been disabled by the site's operator: contact them";

/** The one answer to a wrong, expired or already used code. */
export const INVALID_CODE_MESSAGE = "the verification code is wrong or has expired";
export const INVALID_PHONE_MESSAGE = "please enter the correct phone number";
