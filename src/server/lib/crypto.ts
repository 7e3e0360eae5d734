import { createCipheriv, createDecipheriv, createHash, createHmac, hash, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";

/** One-shot: every gateway call hashes its key, and this is a third of createHash's cost. */
export function sha256Hex(value: string): string {
  return hash("sha256", value, "hex");
}

export function hmacHex(secret: string, value: string): string {
  return createHmac("sha256", secret).update(value).digest("hex");
}

export function equalHex(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && timingSafeEqual(left, right);
}

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

/** Marks a value sealed under an HKDF-derived key; values without it were sealed under the earlier SHA-256 derivation. */
const HKDF_SEALED = "k2.";

/**
 * AES-256-GCM under a key derived from the server secret and a purpose (HKDF-SHA256, RFC 5869),
 * so one secret serves several uses. Values sealed before keys were derived with HKDF still open.
 */
export function createSealer(secret: string, purpose: string) {
  const key = Buffer.from(hkdfSync("sha256", secret, "tollgate-sealer", purpose, 32));
  const earlierKey = createHash("sha256").update(`${purpose}:${secret}`).digest();
  return {
    seal(plain: string): string {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      return HKDF_SEALED + [iv, cipher.getAuthTag(), body].map((b) => b.toString("base64url")).join(".");
    },
    open(sealed: string): string {
      const current = sealed.startsWith(HKDF_SEALED);
      const [iv, tag, body] = (current ? sealed.slice(HKDF_SEALED.length) : sealed).split(".").map((p) => Buffer.from(p, "base64url"));
      if (!iv || !tag || !body) throw new Error("malformed sealed value");
      const decipher = createDecipheriv("aes-256-gcm", current ? key : earlierKey, iv);
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(body), decipher.final()]).toString("utf8");
    },
  };
}
