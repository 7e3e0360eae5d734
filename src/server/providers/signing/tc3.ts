import { createHmac } from "node:crypto";
import type { TencentCredentials } from "./credentials";
import { sha256Hex } from "../../lib/crypto";

export const TC3_ALGORITHM = "TC3-HMAC-SHA256";
export const TC3_CONTENT_TYPE = "application/json; charset=utf-8";

export interface Tc3Call {
  endpoint: string;
  service: string;
  action: string;
  version: string;
  region?: string;
  payload: string;
  credentials: TencentCredentials;
  now: Date;
}

const hmac = (key: string | Buffer, value: string) => createHmac("sha256", key).update(value).digest();

/** The UTC date of a TencentCloud timestamp, as the credential scope names it. */
export function tc3Date(timestampSeconds: number): string {
  return new Date(timestampSeconds * 1000).toISOString().slice(0, 10);
}

/**
 * TencentCloud API signature v3 for a JSON POST: canonical request over content-type, host and
 * x-tc-action; the signing key derived from the SecretKey through the date, the service and
 * "tc3_request"; the Authorization header carries the credential scope and the signature.
 */
export function signTc3(call: Tc3Call): Record<string, string> {
  const host = new URL(call.endpoint).host;
  const timestamp = Math.floor(call.now.getTime() / 1000);
  const date = tc3Date(timestamp);
  const signedHeaders = "content-type;host;x-tc-action";
  const canonicalRequest = [
    "POST",
    "/",
    "",
    `content-type:${TC3_CONTENT_TYPE}\nhost:${host.toLowerCase()}\nx-tc-action:${call.action.toLowerCase()}\n`,
    signedHeaders,
    sha256Hex(call.payload),
  ].join("\n");
  const scope = `${date}/${call.service}/tc3_request`;
  const stringToSign = `${TC3_ALGORITHM}\n${timestamp}\n${scope}\n${sha256Hex(canonicalRequest)}`;
  const signingKey = hmac(hmac(hmac(`TC3${call.credentials.secretKey}`, date), call.service), "tc3_request");
  const signature = createHmac("sha256", signingKey).update(stringToSign).digest("hex");
  return {
    authorization: `${TC3_ALGORITHM} Credential=${call.credentials.secretId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`,
    "content-type": TC3_CONTENT_TYPE,
    "x-tc-action": call.action,
    "x-tc-timestamp": String(timestamp),
    "x-tc-version": call.version,
    ...(call.region ? { "x-tc-region": call.region } : {}),
  };
}
