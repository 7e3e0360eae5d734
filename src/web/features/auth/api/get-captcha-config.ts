import type { CaptchaSettings } from "#shared/captcha";
import { api } from "../../../lib/http";

export function getCaptchaConfig(): Promise<CaptchaSettings> {
  return api<CaptchaSettings>("/api/v1/auth/captcha", { quiet: true });
}
