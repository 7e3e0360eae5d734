import type { CaptchaConfig } from "./config";
import { sha256Hex } from "../../lib/crypto";
import { callProviderJson, ProviderFailure } from "../http";
import { signAcs3 } from "../signing/acs3";
import type { CaptchaProvider } from "./types";

type AliyunCaptchaConfig = Extract<CaptchaConfig, { provider: "aliyun" }>;

interface VerifyAnswer {
  Success?: boolean;
  Code?: string;
  Message?: string;
  Result?: { VerifyResult?: boolean; VerifyCode?: string };
}

/** How long an accepted `captchaVerifyParam` stays on the used list (Aliyun's own validity is shorter). */
const REMEMBER_MS = 30 * 60 * 1000;

/** Aliyun Captcha 2.0: the browser's `captchaVerifyParam` is checked with VerifyIntelligentCaptcha (2023-03-05). */
export function createAliyunCaptcha(config: AliyunCaptchaConfig): CaptchaProvider {
  return {
    name: "aliyun",
    settings: () => ({ provider: "aliyun", scriptUrl: config.scriptUrl, sceneId: config.sceneId, prefix: config.prefix, region: config.region }),
    async verify(result, { now }) {
      if (result.length === 0) return { ok: false, reason: "malformed" };
      const { url, headers } = signAcs3({
        endpoint: config.endpoint,
        action: "VerifyIntelligentCaptcha",
        version: "2023-03-05",
        params: { CaptchaVerifyParam: result, SceneId: config.sceneId },
        credentials: config.credentials,
        now,
      });
      const { json } = await callProviderJson("aliyun captcha", url, { method: "POST", headers });
      const answer = (json ?? {}) as VerifyAnswer;
      if (answer.Success !== true || !answer.Result) {
        throw new ProviderFailure("aliyun captcha", `${answer.Code ?? "error"}: ${answer.Message ?? "no result"}`);
      }
      if (answer.Result.VerifyResult !== true) return { ok: false, reason: "invalid" };
      return { ok: true, id: `aliyun:${sha256Hex(result)}`, validUntil: new Date(now.getTime() + REMEMBER_MS) };
    },
  };
}
