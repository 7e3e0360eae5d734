import type { AliyunCredentials, TencentCredentials } from "../signing/credentials";

/** The SMS provider the operator chose (SMS_PROVIDER) and what it needs. */
export type SmsConfig =
  | { provider: "console" }
  | { provider: "aliyun"; credentials: AliyunCredentials; endpoint: string; signName: string; templateCode: string }
  | {
      provider: "tencent";
      credentials: TencentCredentials;
      endpoint: string;
      region: string;
      sdkAppId: string;
      signName: string;
      templateId: string;
    };
