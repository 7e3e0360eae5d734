import type { CaptchaSettings } from "#shared/captcha";
import { loadScript } from "./load-script";
import type { Captcha } from "./types";

interface AliyunCaptchaOptions {
  SceneId: string;
  prefix: string;
  mode: "popup";
  element: string;
  button: string;
  language: string;
  captchaVerifyCallback(captchaVerifyParam: string): Promise<{ captchaResult: boolean; bizResult?: boolean }>;
  onBizResultCallback(bizResult: boolean): void;
  getInstance(instance: unknown): void;
}

declare global {
  interface Window {
    AliyunCaptchaConfig?: { region: string; prefix: string };
    initAliyunCaptcha?: (options: AliyunCaptchaOptions) => void;
  }
}

let sequence = 0;

/**
 * Aliyun Captcha 2.0 in popup mode. The widget hands us `captchaVerifyParam`; the server verifies
 * it with VerifyIntelligentCaptcha as part of the code request, so the widget is told it passed.
 */
export async function loadAliyunCaptcha(config: Extract<CaptchaSettings, { provider: "aliyun" }>, host: HTMLElement, language: string): Promise<Captcha> {
  // The V3 script reads the account's region and identity prefix from this global when it loads.
  window.AliyunCaptchaConfig = { region: config.region, prefix: config.prefix };
  await loadScript(config.scriptUrl);
  if (!window.initAliyunCaptcha) throw new Error("aliyun captcha script did not define initAliyunCaptcha");
  const id = `aliyun-captcha-${++sequence}`;
  const element = document.createElement("div");
  element.id = `${id}-element`;
  const trigger = document.createElement("button");
  trigger.type = "button";
  trigger.id = `${id}-button`;
  trigger.hidden = true;
  host.append(element, trigger);
  let settle: ((proof: string | null) => void) | null = null;
  window.initAliyunCaptcha({
    SceneId: config.sceneId,
    prefix: config.prefix,
    mode: "popup",
    element: `#${element.id}`,
    button: `#${trigger.id}`,
    language: language === "zh-CN" ? "cn" : "en",
    captchaVerifyCallback: async (captchaVerifyParam) => {
      settle?.(captchaVerifyParam);
      settle = null;
      return { captchaResult: true, bizResult: true };
    },
    onBizResultCallback: () => {},
    getInstance: () => {},
  });
  return {
    solve: () =>
      new Promise<string | null>((resolve) => {
        settle = resolve;
        trigger.click();
      }),
    dispose: () => {
      settle?.(null);
      element.remove();
      trigger.remove();
    },
  };
}
