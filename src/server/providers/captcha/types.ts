import type { CaptchaProviderId, CaptchaSettings } from "#shared/captcha";

/** A result the provider accepted: `id` names it for the single-use check, until `validUntil`. */
export type CaptchaVerdict = { ok: true; id: string; validUntil: Date } | { ok: false; reason: "malformed" | "invalid" | "expired" };

export interface CaptchaProvider {
  readonly name: CaptchaProviderId;
  /** What GET /api/v1/auth/captcha tells the browser. */
  settings(): CaptchaSettings;
  /** Checks a result server-side; throws ProviderFailure when the provider cannot answer. Single use is the caller's job. */
  verify(result: string, context: { ip: string; now: Date }): Promise<CaptchaVerdict>;
}

/** Where a provider reports its own faults (the server's logger). */
export interface CaptchaLog {
  error(fields: { err: unknown }, message: string): void;
}
