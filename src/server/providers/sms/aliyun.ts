import type { SmsConfig } from "../../auth-config";
import { callProviderJson } from "../http";
import { signAcs3 } from "../signing/acs3";
import { SmsSendError, type SmsProvider } from "./types";

type AliyunSmsConfig = Extract<SmsConfig, { provider: "aliyun" }>;

/** Alibaba Cloud SMS (Dysmsapi 2017-05-25 SendSms), signed with ACS3-HMAC-SHA256. The template takes `${code}`. */
export function createAliyunSms(config: AliyunSmsConfig): SmsProvider {
  return {
    name: "aliyun",
    async sendVerificationCode({ phone, code, now }) {
      const { url, headers } = signAcs3({
        endpoint: config.endpoint,
        action: "SendSms",
        version: "2017-05-25",
        params: {
          PhoneNumbers: phone,
          SignName: config.signName,
          TemplateCode: config.templateCode,
          TemplateParam: JSON.stringify({ code }),
        },
        credentials: config.credentials,
        now,
      });
      const { json } = await callProviderJson("aliyun sms", url, { method: "POST", headers });
      const answer = (json ?? {}) as { Code?: string; Message?: string };
      if (answer.Code !== "OK") throw new SmsSendError("aliyun", answer.Code ?? "unknown", answer.Message ?? "");
    },
  };
}
