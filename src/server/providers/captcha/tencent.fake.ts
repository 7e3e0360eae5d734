import { randomBytes } from "node:crypto";
import { FakeHttpServer, type FakeRequest, type FakeResponse } from "../fake-http";
import { tc3Error, verifyTc3 } from "../signing/tc3.fake";

interface DescribePayload {
  CaptchaType?: number;
  Ticket?: string;
  UserIp?: string;
  Randstr?: string;
  CaptchaAppId?: number;
  AppSecretKey?: string;
}

/**
 * A local Tencent Captcha verification endpoint (DescribeCaptchaResult 2019-07-22). It checks the
 * TC3 signature as TencentCloud API 3.0 does, then the app id and app secret key. `solve()`
 * plays the browser widget's callback: a ticket and randstr the fake accepts once.
 */
export class FakeTencentCaptcha {
  readonly secretId = "AKIDFakeCaptchaSecretId000000000";
  readonly secretKey = "fake-tencent-captcha-secret-0123";
  readonly appId = "190000001";
  readonly appSecretKey = "fake-app-secret-key-0123456789ab";
  readonly verifications: { ticket: string; userIp: string; code: number }[] = [];
  readonly rejected: string[] = [];
  private readonly issued = new Map<string, string>();
  private readonly used = new Set<string>();
  private readonly http = new FakeHttpServer((request) => this.handle(request));

  get url(): string {
    return this.http.url;
  }

  start = () => this.http.start();
  stop = () => this.http.stop();

  solve(): { ticket: string; randstr: string } {
    const ticket = `t03${randomBytes(24).toString("base64url")}`;
    const randstr = `@${randomBytes(3).toString("hex")}`;
    this.issued.set(ticket, randstr);
    return { ticket, randstr };
  }

  private handle(request: FakeRequest): FakeResponse {
    const verdict = verifyTc3(request, "captcha", new Map([[this.secretId, this.secretKey]]));
    if (!verdict.ok) {
      this.rejected.push(verdict.code);
      return tc3Error(verdict.code, verdict.message);
    }
    if (verdict.action !== "DescribeCaptchaResult" || verdict.version !== "2019-07-22") return tc3Error("InvalidAction", "The action does not exist.");
    const body = verdict.payload as DescribePayload;
    const ticket = body.Ticket ?? "";
    let code = 1;
    if (body.CaptchaAppId !== Number(this.appId) || body.AppSecretKey !== this.appSecretKey) code = 100;
    else if (this.used.has(ticket)) code = 9;
    else if (this.issued.get(ticket) !== body.Randstr) code = 7;
    if (code === 1) this.used.add(ticket);
    this.verifications.push({ ticket, userIp: body.UserIp ?? "", code });
    const messages: Record<number, string> = { 1: "OK", 7: "captcha no match", 9: "ticket reused", 100: "appid-secretkey-ticket mismatch" };
    return {
      status: 200,
      json: { Response: { CaptchaCode: code, CaptchaMsg: messages[code], EvilLevel: 0, GetCaptchaTime: 0, RequestId: crypto.randomUUID() } },
    };
  }
}
