import type { CaptchaConfig } from "../api/get-captcha-config";
import { loadScript } from "./load-script";
import type { Captcha } from "./types";

interface TencentCaptchaResult {
  ret: number;
  ticket?: string;
  randstr?: string;
}

declare global {
  interface Window {
    TencentCaptcha?: new (
      appId: string,
      callback: (result: TencentCaptchaResult) => void,
      options?: { userLanguage?: string },
    ) => { show(): void; destroy?(): void };
  }
}

/** Tencent Captcha: `ret === 0` carries the ticket and randstr the server checks with DescribeCaptchaResult. */
export async function loadTencentCaptcha(config: CaptchaConfig, language: string): Promise<Captcha> {
  if (!config.scriptUrl) throw new Error("tencent captcha needs a scriptUrl");
  await loadScript(config.scriptUrl);
  const TencentCaptcha = window.TencentCaptcha;
  if (!TencentCaptcha) throw new Error("tencent captcha script did not define TencentCaptcha");
  return {
    solve: () =>
      new Promise<string | null>((resolve) => {
        const captcha = new TencentCaptcha(
          String(config.appId ?? ""),
          (result) =>
            resolve(result.ret === 0 && result.ticket ? JSON.stringify({ ticket: result.ticket, randstr: result.randstr ?? "" }) : null),
          { userLanguage: language === "zh-CN" ? "zh-cn" : "en" },
        );
        captcha.show();
      }),
    dispose: () => {},
  };
}
