import type { CaptchaConfig } from "./config";

/** Origins a page may use beyond its own, for the third-party widgets it loads. */
export interface CspSources {
  script: string[];
  connect: string[];
  frame: string[];
  img: string[];
}

export const NO_SOURCES: CspSources = { script: [], connect: [], frame: [], img: [] };

/** What the configured captcha's browser script needs: its own origin, its API and its images. */
export function captchaCspSources(captcha: CaptchaConfig): CspSources {
  switch (captcha.provider) {
    case "altcha":
      return NO_SOURCES;
    case "aliyun":
      return {
        script: [new URL(captcha.scriptUrl).origin, "https://g.alicdn.com"],
        connect: ["https://*.aliyuncs.com"],
        frame: [],
        img: ["https://*.alicdn.com", "https://*.aliyuncs.com"],
      };
    case "tencent":
      return {
        script: [new URL(captcha.scriptUrl).origin, "https://*.captcha.qcloud.com"],
        connect: ["https://*.captcha.qcloud.com"],
        frame: [new URL(captcha.scriptUrl).origin, "https://*.captcha.qcloud.com"],
        img: ["https://*.captcha.qcloud.com", "https://*.gtimg.com"],
      };
  }
}
