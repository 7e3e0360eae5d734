import { FakeHttpServer, type FakeRequest, type FakeResponse } from "../fake-http";
import { tc3Error, verifyTc3 } from "../signing/tc3.fake";

export interface FakeTencentSmsMessage {
  phone: string;
  signName: string;
  templateId: string;
  params: string[];
}

interface SendSmsPayload {
  PhoneNumberSet?: string[];
  SmsSdkAppId?: string;
  SignName?: string;
  TemplateId?: string;
  TemplateParamSet?: string[];
}

/**
 * A local Tencent Cloud SMS endpoint: SendSms 2021-01-11 for one SecretId/SecretKey, one SDK app,
 * sign name and template. It checks the TC3 signature as TencentCloud API 3.0 does.
 */
export class FakeTencentSms {
  readonly secretId = "AKIDFakeSmsSecretId0000000000000";
  readonly secretKey = "fake-tencent-sms-secret-key-0123";
  readonly sdkAppId = "1400000001";
  readonly signName = "Tollgate";
  readonly templateId = "1000001";
  /** The approved low-balance alert template. */
  readonly alertTemplateId = "1000002";
  /** The approved lot-expiry reminder template. */
  readonly lotTemplateId = "1000003";
  readonly messages: FakeTencentSmsMessage[] = [];
  readonly rejected: string[] = [];
  private readonly http = new FakeHttpServer((request) => this.handle(request));

  get url(): string {
    return this.http.url;
  }

  start = () => this.http.start();
  stop = () => this.http.stop();

  private handle(request: FakeRequest): FakeResponse {
    const verdict = verifyTc3(request, "sms", new Map([[this.secretId, this.secretKey]]));
    if (!verdict.ok) {
      this.rejected.push(verdict.code);
      return tc3Error(verdict.code, verdict.message);
    }
    if (verdict.action !== "SendSms" || verdict.version !== "2021-01-11") return tc3Error("InvalidAction", "The action does not exist.");
    const body = verdict.payload as SendSmsPayload;
    if (body.SmsSdkAppId !== this.sdkAppId) return tc3Error("FailedOperation.SmsSdkAppIdVerifyFail", "SdkAppId verification failed.");
    if (body.SignName !== this.signName) return tc3Error("FailedOperation.SignatureIncorrectOrUnapproved", "The signature is not approved.");
    if (![this.templateId, this.alertTemplateId, this.lotTemplateId].includes(body.TemplateId ?? "")) return tc3Error("FailedOperation.TemplateIncorrectOrUnapproved", "The template is not approved.");
    const statuses = (body.PhoneNumberSet ?? []).map((number) => {
      const ok = /^\+861[3-9]\d{9}$/.test(number);
      if (ok) this.messages.push({ phone: number.slice(3), signName: body.SignName!, templateId: body.TemplateId!, params: body.TemplateParamSet ?? [] });
      return {
        SerialNo: ok ? crypto.randomUUID() : "",
        PhoneNumber: number,
        Fee: ok ? 1 : 0,
        SessionContext: "",
        Code: ok ? "Ok" : "InvalidParameterValue.IncorrectPhoneNumber",
        Message: ok ? "send success" : "incorrect phone number",
        IsoCode: "CN",
      };
    });
    return { status: 200, json: { Response: { SendStatusSet: statuses, RequestId: crypto.randomUUID() } } };
  }
}
