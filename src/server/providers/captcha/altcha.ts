import { createChallenge, randomInt, verifySolution, type Challenge, type Payload } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/sha";
import { hmacHex } from "../../lib/crypto";
import type { CaptchaLog, CaptchaProvider, CaptchaVerdict } from "./types";

export const ALTCHA_CHALLENGE_PATH = "/api/v1/auth/captcha/altcha/challenge";
export const ALTCHA_CHALLENGE_TTL_SECONDS = 300;

export interface AltchaProvider extends CaptchaProvider {
  createChallenge(now: Date): Promise<Challenge>;
}

function decodePayload(result: string): Payload | null {
  try {
    const payload = JSON.parse(Buffer.from(result, "base64").toString("utf8")) as Partial<Payload>;
    if (!payload.challenge?.parameters || typeof payload.challenge.signature !== "string" || !payload.solution) return null;
    return payload as Payload;
  } catch {
    return null;
  }
}

/**
 * The self-hosted proof-of-work captcha (ALTCHA protocol v2, SHA-256): the challenge hides a
 * random counter up to `maxNumber` that the browser finds by brute force. Challenges are signed
 * with keys derived from SESSION_SECRET and carry their expiry in the signed data, checked
 * against the server's clock.
 */
export function createAltcha(options: { secret: string; maxNumber: number; log: CaptchaLog }): AltchaProvider {
  const hmacSignatureSecret = hmacHex(options.secret, "altcha:challenge-signature");
  const hmacKeySignatureSecret = hmacHex(options.secret, "altcha:key-signature");
  return {
    name: "altcha",
    settings: () => ({ provider: "altcha", challengeUrl: ALTCHA_CHALLENGE_PATH }),
    createChallenge: (now) =>
      createChallenge({
        algorithm: "SHA-256",
        cost: 1,
        counter: randomInt(options.maxNumber, Math.ceil(options.maxNumber / 2)),
        deriveKey,
        hmacSignatureSecret,
        hmacKeySignatureSecret,
        data: { exp: Math.floor(now.getTime() / 1000) + ALTCHA_CHALLENGE_TTL_SECONDS },
      }),
    async verify(result, { now }): Promise<CaptchaVerdict> {
      const payload = decodePayload(result);
      if (!payload) return { ok: false, reason: "malformed" };
      const verification = await verifySolution({
        challenge: payload.challenge,
        solution: payload.solution,
        deriveKey,
        hmacSignatureSecret,
        hmacKeySignatureSecret,
      }).catch((error: unknown) => {
        // A fault of ours, not the browser's: the caller still refuses the captcha, the operator hears why.
        options.log.error({ err: error }, "altcha: verifying a solution failed; the captcha was refused");
        return null;
      });
      if (!verification?.verified) return { ok: false, reason: "invalid" };
      const exp = Number(payload.challenge.parameters.data?.exp);
      if (!Number.isFinite(exp) || exp * 1000 <= now.getTime()) return { ok: false, reason: "expired" };
      return { ok: true, id: `altcha:${payload.challenge.parameters.nonce}`, validUntil: new Date(exp * 1000) };
    },
  };
}
