import type { SmsConfig } from "./config";
import { callProviderJson } from "../http";
import { signAcs3 } from "../signing/acs3";
import { SmsSendError, type SmsProvider } from "./types";

type AliyunSmsConfig = Extract<SmsConfig, { provider: "aliyun" }>;

/** Alibaba Cloud SMS (Dysmsapi 2017-05-25 SendSms), signed with ACS3-HMAC-SHA256. The template takes `${code}`. */
export function createAliyunSms(config: AliyunSmsConfig): SmsProvider {
  async function send(phone: string, templateCode: string, params: Record<string, string>, now: Date): Promise<void> {
    const { url, headers } = signAcs3({
      endpoint: config.endpoint,
      action: "SendSms",
      version: "2017-05-25",
      params: { PhoneNumbers: phone, SignName: config.signName, TemplateCode: templateCode, TemplateParam: JSON.stringify(params) },
      credentials: config.credentials,
      now,
    });
    const { json } = await callProviderJson("aliyun sms", url, { method: "POST", headers });
    const answer = (json ?? {}) as { Code?: string; Message?: string };
    if (answer.Code !== "OK") throw new SmsSendError("aliyun", answer.Code ?? "unknown", answer.Message ?? "");
  }
  return {
    name: "aliyun",
    sendVerificationCode: ({ phone, code, now }) => send(phone, config.templateCode, { code }, now),
    async sendLowBalanceAlert({ phone, balance, threshold, template, now }) {
      if (!template) throw new SmsSendError("aliyun", "no_template", "ALIYUN_SMS_ALERT_TEMPLATE_CODE is not set");
      await send(phone, template, { balance, threshold }, now);
    },
    async sendLotExpiryReminder({ phone, packageName, toolName, unitsLeft, expiresAt, template, now }) {
      if (!template) throw new SmsSendError("aliyun", "no_template", "ALIYUN_SMS_LOT_TEMPLATE_CODE is not set");
      await send(phone, template, { package: packageName, tool: toolName, units: unitsLeft, expires: expiresAt }, now);
    },
  };
}
