import { api } from "../../../lib/http";

export interface CaptchaConfig {
  provider: "altcha" | "aliyun" | "tencent";
  challengeUrl?: string;
  scriptUrl?: string;
  [setting: string]: unknown;
}

export function getCaptchaConfig(): Promise<CaptchaConfig> {
  return api<CaptchaConfig>("/api/v1/auth/captcha", { quiet: true });
}
