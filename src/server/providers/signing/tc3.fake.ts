import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { FakeRequest } from "../fake-http";

export type Tc3Verdict = { ok: true; action: string; version: string; payload: unknown } | { ok: false; code: string; message: string };

const hex = (value: string | Buffer) => createHash("sha256").update(value).digest("hex");
const hmac = (key: string | Buffer, value: string) => createHmac("sha256", key).update(value).digest();

/**
 * Checks a request the way TencentCloud API 3.0 does for TC3-HMAC-SHA256: parses the credential
 * scope, requires the service and the date of X-TC-Timestamp to match it, rebuilds the canonical
 * request from the received signed headers (names and values lower-cased) and body, derives the
 * signing key from the SecretKey it holds for the SecretId, and compares.
 */
export function verifyTc3(request: FakeRequest, service: string, secrets: ReadonlyMap<string, string>): Tc3Verdict {
  const auth = /^TC3-HMAC-SHA256 Credential=([^/]+)\/(\d{4}-\d{2}-\d{2})\/([a-z]+)\/tc3_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(
    String(request.headers.authorization ?? ""),
  );
  if (!auth) return { ok: false, code: "AuthFailure.InvalidAuthorization", message: "Authorization header is malformed." };
  const [, secretId = "", date = "", scopeService = "", signedList = "", signature = ""] = auth;
  const secretKey = secrets.get(secretId);
  if (!secretKey) return { ok: false, code: "AuthFailure.SecretIdNotFound", message: "The SecretId is not found." };
  const timestamp = Number(request.headers["x-tc-timestamp"]);
  if (scopeService !== service || !Number.isInteger(timestamp) || new Date(timestamp * 1000).toISOString().slice(0, 10) !== date) {
    return { ok: false, code: "AuthFailure.InvalidAuthorization", message: "The credential scope does not match the request." };
  }
  const names = signedList.split(";");
  if (!names.includes("content-type") || !names.includes("host")) {
    return { ok: false, code: "AuthFailure.InvalidAuthorization", message: "content-type and host must be signed." };
  }
  const canonical = [
    request.method.toUpperCase(),
    "/",
    "",
    names.map((n) => `${n}:${String(request.headers[n] ?? "").trim().toLowerCase()}\n`).join(""),
    signedList,
    hex(request.body),
  ].join("\n");
  const stringToSign = `TC3-HMAC-SHA256\n${timestamp}\n${date}/${service}/tc3_request\n${hex(canonical)}`;
  const key = hmac(hmac(hmac(`TC3${secretKey}`, date), service), "tc3_request");
  if (!timingSafeEqual(hmac(key, stringToSign), Buffer.from(signature, "hex"))) {
    return { ok: false, code: "AuthFailure.SignatureFailure", message: "The provided credentials could not be validated." };
  }
  let payload: unknown;
  try {
    payload = JSON.parse(request.body.toString("utf8"));
  } catch {
    return { ok: false, code: "InvalidParameter", message: "The body is not JSON." };
  }
  return { ok: true, action: String(request.headers["x-tc-action"] ?? ""), version: String(request.headers["x-tc-version"] ?? ""), payload };
}

/** TencentCloud's error envelope: HTTP 200 with Response.Error. */
export function tc3Error(code: string, message: string) {
  return { status: 200, json: { Response: { Error: { Code: code, Message: message }, RequestId: crypto.randomUUID() } } };
}
