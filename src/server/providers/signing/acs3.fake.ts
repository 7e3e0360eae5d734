import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { FakeRequest } from "../fake-http";

export type Acs3Verdict =
  | { ok: true; accessKeyId: string; action: string; version: string; params: Record<string, string> }
  | { ok: false; status: number; code: string; message: string };

/** RFC 3986, the encoding Alibaba Cloud recomputes the canonical query with. */
const encode = (value: string) => encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const hex = (value: string | Buffer) => createHash("sha256").update(value).digest("hex");

/**
 * Checks a request the way Alibaba Cloud's gateway does for signature V3: it rebuilds the
 * canonical request from what arrived (method, path, the query decoded and re-encoded in sorted
 * order, every header the client said it signed, the body's hash), signs it with the secret it
 * holds for the AccessKey ID, and compares. A nonce is accepted once.
 */
export function verifyAcs3(request: FakeRequest, secrets: ReadonlyMap<string, string>, seenNonces: Set<string>): Acs3Verdict {
  const auth = /^ACS3-HMAC-SHA256 Credential=([^,]+),SignedHeaders=([^,]+),Signature=([0-9a-f]{64})$/.exec(String(request.headers.authorization ?? ""));
  if (!auth) return { ok: false, status: 400, code: "IncompleteSignature", message: "The request signature does not conform to Aliyun standards." };
  const [, accessKeyId = "", signedList = "", signature = ""] = auth;
  const secret = secrets.get(accessKeyId);
  if (!secret) return { ok: false, status: 404, code: "InvalidAccessKeyId.NotFound", message: "Specified access key is not found." };

  const names = signedList.split(";");
  const required = ["host", "x-acs-action", "x-acs-content-sha256", "x-acs-date", "x-acs-signature-nonce", "x-acs-version"];
  const present = Object.keys(request.headers).filter((n) => n.startsWith("x-acs-") || n === "host" || n === "content-type");
  if (!required.every((n) => names.includes(n)) || !present.every((n) => names.includes(n)) || [...names].sort().join(";") !== signedList) {
    return { ok: false, status: 400, code: "IncompleteSignature", message: "Every common header must be signed, in order." };
  }
  const header = (name: string) => String(request.headers[name] ?? "").trim();
  if (header("x-acs-content-sha256") !== hex(request.body)) {
    return { ok: false, status: 400, code: "InvalidParameter.ContentSHA256", message: "x-acs-content-sha256 does not match the body." };
  }

  const url = new URL(request.url, "http://fake");
  const pairs = url.search
    .slice(1)
    .split("&")
    .filter(Boolean)
    .map((pair) => {
      const [k = "", v = ""] = pair.split("=");
      return [decodeURIComponent(k), decodeURIComponent(v)] as const;
    });
  const canonicalQuery = pairs
    .map(([k, v]) => `${encode(k)}=${encode(v)}`)
    .sort()
    .join("&");
  const canonical = [
    request.method.toUpperCase(),
    url.pathname,
    canonicalQuery,
    names.map((n) => `${n}:${header(n)}\n`).join(""),
    signedList,
    header("x-acs-content-sha256"),
  ].join("\n");
  const expected = createHmac("sha256", secret).update(`ACS3-HMAC-SHA256\n${hex(canonical)}`).digest();
  if (!timingSafeEqual(expected, Buffer.from(signature, "hex"))) {
    return { ok: false, status: 400, code: "SignatureDoesNotMatch", message: "Specified signature is not matched with our calculation." };
  }
  const nonce = header("x-acs-signature-nonce");
  if (seenNonces.has(nonce)) return { ok: false, status: 400, code: "SignatureNonceUsed", message: "Specified signature nonce was used already." };
  seenNonces.add(nonce);
  return { ok: true, accessKeyId, action: header("x-acs-action"), version: header("x-acs-version"), params: Object.fromEntries(pairs) };
}
