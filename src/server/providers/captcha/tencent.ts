import { tencentCaptchaResultSchema } from "#shared/captcha";
import type { CaptchaConfig } from "./config";
import { sha256Hex } from "../../lib/crypto";
import { callProviderJson, ProviderFailure } from "../http";
import { signTc3 } from "../signing/tc3";
import type { CaptchaProvider } from "./types";

type TencentCaptchaConfig = Extract<CaptchaConfig, { provider: "tencent" }>;

interface DescribeAnswer {
  Response?: { Error?: { Code: string; Message: string }; CaptchaCode?: number; CaptchaMsg?: string; EvilLevel?: number };
}

const REMEMBER_MS = 30 * 60 * 1000;
/** DescribeCaptchaResult's CaptchaCode for a ticket that passed. */
const PASSED = 1;
/** EvilLevel for a request Tencent judges malicious. */
const EVIL = 100;
/** CaptchaCode when the CaptchaAppId and AppSecretKey do not belong together: our configuration, not the user. */
const MISCONFIGURED = 100;

function parseResult(result: string): { ticket: string; randstr: string } | null {
  try {
    const parsed = tencentCaptchaResultSchema.safeParse(JSON.parse(result));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Tencent Captcha: the browser's ticket and randstr are checked with DescribeCaptchaResult (2019-07-22). */
export function createTencentCaptcha(config: TencentCaptchaConfig): CaptchaProvider {
  return {
    name: "tencent",
    settings: () => ({ provider: "tencent", scriptUrl: config.scriptUrl, appId: config.appId }),
    async verify(result, { ip, now }) {
      const ticket = parseResult(result);
      if (!ticket) return { ok: false, reason: "malformed" };
      const payload = JSON.stringify({
        CaptchaType: 9,
        Ticket: ticket.ticket,
        UserIp: ip,
        Randstr: ticket.randstr,
        CaptchaAppId: Number(config.appId),
        AppSecretKey: config.appSecretKey,
      });
      const headers = signTc3({
        endpoint: config.endpoint,
        service: "captcha",
        action: "DescribeCaptchaResult",
        version: "2019-07-22",
        payload,
        credentials: config.credentials,
        now,
      });
      const { json } = await callProviderJson("tencent captcha", config.endpoint, { method: "POST", headers, body: payload });
      const answer = ((json ?? {}) as DescribeAnswer).Response;
      if (!answer || answer.Error) {
        throw new ProviderFailure("tencent captcha", `${answer?.Error?.Code ?? "error"}: ${answer?.Error?.Message ?? "no response"}`);
      }
      if (answer.CaptchaCode === MISCONFIGURED) throw new ProviderFailure("tencent captcha", `${answer.CaptchaCode}: ${answer.CaptchaMsg ?? ""}`);
      if (answer.CaptchaCode !== PASSED || answer.EvilLevel === EVIL) return { ok: false, reason: "invalid" };
      return { ok: true, id: `tencent:${sha256Hex(ticket.ticket)}`, validUntil: new Date(now.getTime() + REMEMBER_MS) };
    },
  };
}
