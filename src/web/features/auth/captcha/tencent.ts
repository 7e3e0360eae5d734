import type { CaptchaSettings } from "#shared/captcha";
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
export async function loadTencentCaptcha(config: Extract<CaptchaSettings, { provider: "tencent" }>, language: string): Promise<Captcha> {
  await loadScript(config.scriptUrl);
  const TencentCaptcha = window.TencentCaptcha;
  if (!TencentCaptcha) throw new Error("tencent captcha script did not define TencentCaptcha");
  return {
    solve: () =>
      new Promise<string | null>((resolve) => {
        const captcha = new TencentCaptcha(
          config.appId,
          (result) =>
            resolve(result.ret === 0 && result.ticket ? JSON.stringify({ ticket: result.ticket, randstr: result.randstr ?? "" }) : null),
          { userLanguage: language === "zh-CN" ? "zh-cn" : "en" },
        );
        captcha.show();
      }),
    dispose: () => {},
  };
}
