import { FakeHttpServer, type FakeRequest, type FakeResponse } from "../fake-http";
import { verifyAcs3 } from "../signing/acs3.fake";

export interface FakeAliyunSmsMessage {
  phone: string;
  signName: string;
  templateCode: string;
  templateParam: Record<string, string>;
}

/**
 * A local Dysmsapi: SendSms only, for one AccessKey pair, one approved sign name and template.
 * It checks the ACS3 signature as Alibaba Cloud does and answers in Dysmsapi's JSON.
 */
export class FakeAliyunSms {
  readonly accessKeyId = "LTAI5tFakeSmsKeyId000000";
  readonly accessKeySecret = "fake-aliyun-sms-secret-0123456789";
  /** Characters the canonical query must percent-encode exactly as Alibaba Cloud does. */
  readonly signName = "托尔盖特 (Tollgate)*!'~";
  readonly templateCode = "SMS_123456789";
  /** The approved low-balance alert template (its own, as Aliyun approves each message type). */
  readonly alertTemplateCode = "SMS_987654321";
  /** The approved lot-expiry reminder template. */
  readonly lotTemplateCode = "SMS_987654322";
  readonly messages: FakeAliyunSmsMessage[] = [];
  readonly rejected: string[] = [];
  private readonly nonces = new Set<string>();
  private readonly http = new FakeHttpServer((request) => this.handle(request));

  get url(): string {
    return this.http.url;
  }

  start = () => this.http.start();
  stop = () => this.http.stop();

  private handle(request: FakeRequest): FakeResponse {
    const verdict = verifyAcs3(request, new Map([[this.accessKeyId, this.accessKeySecret]]), this.nonces);
    const requestId = crypto.randomUUID();
    if (!verdict.ok) {
      this.rejected.push(verdict.code);
      return { status: verdict.status, json: { RequestId: requestId, Code: verdict.code, Message: verdict.message } };
    }
    if (verdict.action !== "SendSms" || verdict.version !== "2017-05-25") {
      return { status: 404, json: { RequestId: requestId, Code: "InvalidAction.NotFound", Message: "Specified api is not found." } };
    }
    const { PhoneNumbers = "", SignName = "", TemplateCode = "", TemplateParam = "{}" } = verdict.params;
    if (!/^1[3-9]\d{9}$/.test(PhoneNumbers)) return this.answer(requestId, "isv.MOBILE_NUMBER_ILLEGAL", "invalid mobile number");
    if (SignName !== this.signName) return this.answer(requestId, "isv.SMS_SIGNATURE_ILLEGAL", "the sign name is not approved");
    if (![this.templateCode, this.alertTemplateCode, this.lotTemplateCode].includes(TemplateCode)) return this.answer(requestId, "isv.SMS_TEMPLATE_ILLEGAL", "the template is not approved");
    this.messages.push({ phone: PhoneNumbers, signName: SignName, templateCode: TemplateCode, templateParam: JSON.parse(TemplateParam) as Record<string, string> });
    return { status: 200, json: { RequestId: requestId, Code: "OK", Message: "OK", BizId: `${Date.now()}^0` } };
  }

  private answer(requestId: string, code: string, message: string): FakeResponse {
    return { status: 200, json: { RequestId: requestId, Code: code, Message: message } };
  }
}
