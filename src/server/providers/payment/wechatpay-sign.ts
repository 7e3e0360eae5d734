import { createDecipheriv, randomBytes, sign, verify, type KeyObject } from "node:crypto";

/** WeChat Pay API v3 signatures: SHA256withRSA (PKCS#1 v1.5) over lines that each end in "\n", base64. */
export function wechatpaySign(lines: readonly string[], privateKey: KeyObject): string {
  return sign("sha256", Buffer.from(lines.map((l) => `${l}\n`).join(""), "utf8"), privateKey).toString("base64");
}

export function wechatpayVerify(lines: readonly string[], signature: string, publicKey: KeyObject): boolean {
  try {
    return verify("sha256", Buffer.from(lines.map((l) => `${l}\n`).join(""), "utf8"), publicKey, Buffer.from(signature, "base64"));
  } catch {
    return false;
  }
}

export const AUTH_SCHEMA = "WECHATPAY2-SHA256-RSA2048";

/** The Authorization header of a request: method, path with query, timestamp, nonce and body, signed with the merchant's key. */
export function wechatpayAuthorization(
  request: { method: string; pathAndQuery: string; body: string },
  merchant: { mchId: string; certificateSerial: string; privateKey: KeyObject },
  now: Date,
): string {
  const timestamp = String(Math.floor(now.getTime() / 1000));
  const nonce = randomBytes(16).toString("hex");
  const signature = wechatpaySign([request.method, request.pathAndQuery, timestamp, nonce, request.body], merchant.privateKey);
  return `${AUTH_SCHEMA} mchid="${merchant.mchId}",nonce_str="${nonce}",signature="${signature}",timestamp="${timestamp}",serial_no="${merchant.certificateSerial}"`;
}

/** The fields of an Authorization header, or null when it is not WeChat Pay's schema. */
export function parseAuthorization(header: string | undefined): Record<string, string> | null {
  if (!header?.startsWith(`${AUTH_SCHEMA} `)) return null;
  const fields: Record<string, string> = {};
  for (const match of header.slice(AUTH_SCHEMA.length + 1).matchAll(/(\w+)="([^"]*)"/g)) fields[match[1]!] = match[2]!;
  return fields;
}

/** How far a signed timestamp may be from our clock: WeChat Pay's own SDKs allow five minutes. */
export const TIMESTAMP_TOLERANCE_SECONDS = 300;

export type SignatureProblem = "unsigned" | "unknown_key" | "stale" | "bad_signature";

/**
 * Checks the `Wechatpay-*` headers of an answer or a notification: the key id must be the
 * configured WeChat Pay public key's, the timestamp within the tolerance, and the signature over
 * "timestamp\nnonce\nbody\n" valid. Returns null when all hold.
 */
export function wechatpaySignatureProblem(
  headers: Record<string, string | string[] | undefined>,
  body: string,
  platform: { publicKey: KeyObject; publicKeyId: string },
  now: Date,
): SignatureProblem | null {
  const header = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? undefined : value;
  };
  const signature = header("wechatpay-signature");
  const timestamp = header("wechatpay-timestamp");
  const nonce = header("wechatpay-nonce");
  const serial = header("wechatpay-serial");
  if (!signature || !timestamp || !nonce || !serial) return "unsigned";
  if (serial !== platform.publicKeyId) return "unknown_key";
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(Number(timestamp) - now.getTime() / 1000) > TIMESTAMP_TOLERANCE_SECONDS) return "stale";
  return wechatpayVerify([timestamp, nonce, body], signature, platform.publicKey) ? null : "bad_signature";
}

export interface EncryptedResource {
  algorithm: string;
  ciphertext: string;
  associated_data?: string;
  nonce: string;
  original_type?: string;
}

const TAG_BYTES = 16;

/**
 * AEAD_AES_256_GCM with the APIv3 key: the ciphertext is base64 of the encrypted bytes followed
 * by the 16-byte tag. The tag is set before `final()`, which throws when it does not match, so a
 * resource altered in any bit never decrypts.
 */
export function decryptResource(resource: EncryptedResource, apiV3Key: Buffer): string {
  if (resource.algorithm !== "AEAD_AES_256_GCM") throw new Error(`unsupported algorithm ${resource.algorithm}`);
  const data = Buffer.from(resource.ciphertext, "base64");
  if (data.length <= TAG_BYTES) throw new Error("ciphertext too short");
  const decipher = createDecipheriv("aes-256-gcm", apiV3Key, Buffer.from(resource.nonce, "utf8"), { authTagLength: TAG_BYTES });
  decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
  decipher.setAAD(Buffer.from(resource.associated_data ?? "", "utf8"));
  return Buffer.concat([decipher.update(data.subarray(0, data.length - TAG_BYTES)), decipher.final()]).toString("utf8");
}

