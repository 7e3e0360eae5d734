import type { SmsConfig } from "./config";
import { callProviderJson } from "../http";
import { signTc3 } from "../signing/tc3";
import { SmsSendError, type SmsProvider } from "./types";

type TencentSmsConfig = Extract<SmsConfig, { provider: "tencent" }>;

interface SendSmsAnswer {
  Response?: {
    Error?: { Code: string; Message: string };
    SendStatusSet?: { Code: string; Message: string; PhoneNumber: string }[];
  };
}

/** Tencent Cloud SMS (SendSms 2021-01-11), signed with TC3-HMAC-SHA256. The template takes {1} the code and {2} the minutes it is valid. */
export function createTencentSms(config: TencentSmsConfig): SmsProvider {
  async function send(phone: string, templateId: string, params: string[], now: Date): Promise<void> {
    const payload = JSON.stringify({
      PhoneNumberSet: [`+86${phone}`],
      SmsSdkAppId: config.sdkAppId,
      SignName: config.signName,
      TemplateId: templateId,
      TemplateParamSet: params,
    });
    const headers = signTc3({
      endpoint: config.endpoint,
      service: "sms",
      action: "SendSms",
      version: "2021-01-11",
      region: config.region,
      payload,
      credentials: config.credentials,
      now,
    });
    const { json } = await callProviderJson("tencent sms", config.endpoint, { method: "POST", headers, body: payload });
    const answer = (json ?? {}) as SendSmsAnswer;
    const error = answer.Response?.Error;
    if (error) throw new SmsSendError("tencent", error.Code, error.Message);
    const status = answer.Response?.SendStatusSet?.[0];
    if (status?.Code !== "Ok") throw new SmsSendError("tencent", status?.Code ?? "unknown", status?.Message ?? "no send status");
  }
  return {
    name: "tencent",
    sendVerificationCode: ({ phone, code, ttlMinutes, now }) => send(phone, config.templateId, [code, String(ttlMinutes)], now),
    async sendLowBalanceAlert({ phone, balance, threshold, template, now }) {
      if (!template) throw new SmsSendError("tencent", "no_template", "TENCENT_SMS_ALERT_TEMPLATE_ID is not set");
      await send(phone, template, [balance, threshold], now);
    },
    async sendLotExpiryReminder({ phone, packageName, toolName, unitsLeft, expiresAt, template, now }) {
      if (!template) throw new SmsSendError("tencent", "no_template", "TENCENT_SMS_LOT_TEMPLATE_ID is not set");
      await send(phone, template, [packageName, toolName, unitsLeft, expiresAt], now);
    },
  };
}
