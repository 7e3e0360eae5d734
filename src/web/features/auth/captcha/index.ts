import type { CaptchaSettings } from "#shared/captcha";
import { loadAliyunCaptcha } from "./aliyun";
import { loadAltcha } from "./altcha";
import { loadTencentCaptcha } from "./tencent";
import type { Captcha } from "./types";

export type { Captcha };

/** Loads the configured provider's script into `host`; rejects when it cannot be loaded. */
export function loadCaptcha(config: CaptchaSettings, host: HTMLElement, language: string): Promise<Captcha> {
  switch (config.provider) {
    case "altcha":
      return loadAltcha(config, host);
    case "aliyun":
      return loadAliyunCaptcha(config, host, language);
    case "tencent":
      return loadTencentCaptcha(config, language);
  }
}
