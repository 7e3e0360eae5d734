import type { CaptchaConfig } from "./config";
import { createAliyunCaptcha } from "./aliyun";
import { createAltcha, type AltchaProvider } from "./altcha";
import { createTencentCaptcha } from "./tencent";
import type { CaptchaLog, CaptchaProvider } from "./types";

export type { CaptchaProvider, CaptchaVerdict } from "./types";
export type { AltchaProvider } from "./altcha";

/** The provider CAPTCHA_PROVIDER names. */
export function createCaptchaProvider(config: CaptchaConfig, secret: string, log: CaptchaLog): CaptchaProvider | AltchaProvider {
  switch (config.provider) {
    case "altcha":
      return createAltcha({ secret, maxNumber: config.maxNumber, log });
    case "aliyun":
      return createAliyunCaptcha(config);
    case "tencent":
      return createTencentCaptcha(config);
  }
}

export function isAltcha(provider: CaptchaProvider): provider is AltchaProvider {
  return provider.name === "altcha";
}
