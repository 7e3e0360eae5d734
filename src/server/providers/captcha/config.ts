import type { AliyunCredentials, TencentCredentials } from "../signing/credentials";

/** The captcha provider the operator chose (CAPTCHA_PROVIDER) and what it needs. */
export type CaptchaConfig =
  | { provider: "altcha"; maxNumber: number }
  | {
      provider: "aliyun";
      credentials: AliyunCredentials;
      endpoint: string;
      sceneId: string;
      prefix: string;
      region: "cn" | "sgp";
      scriptUrl: string;
    }
  | {
      provider: "tencent";
      credentials: TencentCredentials;
      endpoint: string;
      appId: string;
      appSecretKey: string;
      scriptUrl: string;
    };
