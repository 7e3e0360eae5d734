import type { SmsConfig } from "./config";
import { createAliyunSms } from "./aliyun";
import { createConsoleSms } from "./console";
import { createTencentSms } from "./tencent";
import type { SmsProvider } from "./types";

export type { LowBalanceSms, SmsProvider, VerificationSms } from "./types";
export { SmsSendError } from "./types";

/** The provider SMS_PROVIDER names. */
export function createSmsProvider(config: SmsConfig, options: { dataDir: string; siteName: string }): SmsProvider {
  switch (config.provider) {
    case "console":
      return createConsoleSms(options);
    case "aliyun":
      return createAliyunSms(config);
    case "tencent":
      return createTencentSms(config);
  }
}
