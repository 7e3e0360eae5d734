import { createHmac, randomBytes } from "node:crypto";
import type { AliyunCredentials } from "./credentials";
import { sha256Hex } from "../../lib/crypto";

export const ACS3_ALGORITHM = "ACS3-HMAC-SHA256";

/** RFC 3986 percent-encoding, as Alibaba Cloud canonicalises: only A–Z a–z 0–9 - _ . ~ stay as they are. */
export function acsPercentEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function acsDate(now: Date): string {
  return now.toISOString().replace(/\.\d{3}Z$/, "Z");
}

export interface Acs3Call {
  endpoint: string;
  action: string;
  version: string;
  /** RPC parameters, sent in the query string; the body stays empty. */
  params: Record<string, string>;
  credentials: AliyunCredentials;
  now: Date;
}

/**
 * Alibaba Cloud's signature V3 for an RPC call: the canonical request (method, path, sorted
 * encoded query, the signed headers, the body's SHA-256) hashed into the string to sign, then
 * HMAC-SHA256 with the AccessKey secret.
 */
export function signAcs3(call: Acs3Call): { url: string; headers: Record<string, string> } {
  const endpoint = new URL(call.endpoint);
  const query = Object.entries(call.params)
    .map(([k, v]) => [acsPercentEncode(k), acsPercentEncode(v)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  const payloadHash = sha256Hex("");
  const signed: Record<string, string> = {
    host: endpoint.host,
    "x-acs-action": call.action,
    "x-acs-content-sha256": payloadHash,
    "x-acs-date": acsDate(call.now),
    "x-acs-signature-nonce": randomBytes(16).toString("hex"),
    "x-acs-version": call.version,
  };
  const names = Object.keys(signed).sort();
  const canonicalRequest = [
    "POST",
    "/",
    query,
    names.map((n) => `${n}:${signed[n]}\n`).join(""),
    names.join(";"),
    payloadHash,
  ].join("\n");
  const stringToSign = `${ACS3_ALGORITHM}\n${sha256Hex(canonicalRequest)}`;
  const signature = createHmac("sha256", call.credentials.accessKeySecret).update(stringToSign).digest("hex");
  const { host: _host, ...headers } = signed;
  return {
    url: `${endpoint.origin}/?${query}`,
    headers: {
      ...headers,
      accept: "application/json",
      authorization: `${ACS3_ALGORITHM} Credential=${call.credentials.accessKeyId},SignedHeaders=${names.join(";")},Signature=${signature}`,
    },
  };
}
