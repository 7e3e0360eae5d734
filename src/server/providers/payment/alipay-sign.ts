import { beijingDateTime } from "#shared/beijing-time";
import { sign, verify, type KeyObject } from "node:crypto";

/**
 * Alipay's string to sign: every parameter except the excluded ones and empty values, sorted by
 * name, as `name=value` joined with `&`, values not URL-encoded.
 */
export function alipaySignContent(params: Record<string, string | undefined>, exclude: readonly string[] = ["sign"]): string {
  return Object.keys(params)
    .filter((k) => !exclude.includes(k) && params[k] !== undefined && params[k] !== "")
    .sort()
    .map((k) => `${k}=${params[k]}`)
    .join("&");
}

/** RSA2: SHA256withRSA, PKCS#1 v1.5, base64. */
export function rsa2Sign(content: string, privateKey: KeyObject): string {
  return sign("sha256", Buffer.from(content, "utf8"), privateKey).toString("base64");
}

export function rsa2Verify(content: string, signature: string, publicKey: KeyObject): boolean {
  try {
    return verify("sha256", Buffer.from(content, "utf8"), publicKey, Buffer.from(signature, "base64"));
  } catch {
    return false;
  }
}

/** Alipay timestamps are Beijing time (UTC+8), `yyyy-MM-dd HH:mm:ss`. */
export function alipayTime(at: Date): string {
  return beijingDateTime(at).slice(0, 19);
}

/**
 * A response is signed over the exact text of its `<method>_response` member, so that text is cut
 * out of the body as received rather than re-serialised.
 */
export function signedResponseText(body: string, member: string): string | null {
  const start = body.indexOf(`"${member}"`);
  const signAt = body.lastIndexOf(`,"sign"`);
  if (start === -1 || signAt === -1 || signAt < start) return null;
  const colon = body.indexOf(":", start + member.length + 2);
  return body.slice(colon + 1, signAt).trim();
}
