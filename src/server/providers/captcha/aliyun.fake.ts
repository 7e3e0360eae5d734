import { randomBytes } from "node:crypto";
import { FakeHttpServer, type FakeRequest, type FakeResponse } from "../fake-http";
import { verifyAcs3 } from "../signing/acs3.fake";

/**
 * A local Aliyun Captcha 2.0 verification endpoint (VerifyIntelligentCaptcha 2023-03-05). It
 * checks the ACS3 signature as Alibaba Cloud does. `solve()` plays the browser widget: it returns
 * a `captchaVerifyParam` the fake will accept once, for its scene.
 */
export class FakeAliyunCaptcha {
  readonly accessKeyId = "LTAI5tFakeCaptchaKeyId00";
  readonly accessKeySecret = "fake-aliyun-captcha-secret-012345";
  readonly sceneId = "fake-scene-1";
  readonly prefix = "fakeprefix";
  readonly verifications: { param: string; passed: boolean }[] = [];
  readonly rejected: string[] = [];
  private readonly issued = new Set<string>();
  private readonly used = new Set<string>();
  private readonly nonces = new Set<string>();
  private readonly http = new FakeHttpServer((request) => this.handle(request));

  get url(): string {
    return this.http.url;
  }

  start = () => this.http.start();
  stop = () => this.http.stop();

  solve(): string {
    const param = JSON.stringify({ sceneId: this.sceneId, certifyId: randomBytes(8).toString("hex"), deviceToken: randomBytes(24).toString("base64"), data: "" });
    this.issued.add(param);
    return param;
  }

  private handle(request: FakeRequest): FakeResponse {
    const requestId = crypto.randomUUID();
    const verdict = verifyAcs3(request, new Map([[this.accessKeyId, this.accessKeySecret]]), this.nonces);
    if (!verdict.ok) {
      this.rejected.push(verdict.code);
      return { status: verdict.status, json: { RequestId: requestId, Code: verdict.code, Message: verdict.message } };
    }
    if (verdict.action !== "VerifyIntelligentCaptcha" || verdict.version !== "2023-03-05") {
      return { status: 404, json: { RequestId: requestId, Code: "InvalidAction.NotFound", Message: "Specified api is not found." } };
    }
    const param = verdict.params.CaptchaVerifyParam ?? "";
    const sceneMatches = verdict.params.SceneId === undefined || verdict.params.SceneId === this.sceneId;
    const passed = this.issued.has(param) && !this.used.has(param) && sceneMatches;
    if (passed) this.used.add(param);
    this.verifications.push({ param, passed });
    return {
      status: 200,
      json: {
        RequestId: requestId,
        Success: true,
        Code: "Success",
        Message: "success",
        HttpStatusCode: 200,
        Result: { VerifyResult: passed, VerifyCode: passed ? "T001" : this.used.has(param) ? "F005" : "F002" },
      },
    };
  }
}
