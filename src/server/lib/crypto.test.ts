import { createCipheriv, createHash, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createSealer } from "./crypto";

const SECRET = "sealer-test-secret-0123456789abcdef";

/** A value sealed as the server did before its keys were derived with HKDF. */
function sealedTheEarlierWay(plain: string, purpose: string): string {
  const key = createHash("sha256").update(`${purpose}:${SECRET}`).digest();
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return [iv, cipher.getAuthTag(), body].map((b) => b.toString("base64url")).join(".");
}

describe("the sealer", () => {
  it("opens what it sealed, and only under the same secret and purpose", () => {
    const sealed = createSealer(SECRET, "webhook").seal("whsec_abc");
    expect(sealed.startsWith("k2.")).toBe(true);
    expect(sealed).not.toContain("whsec_abc");
    expect(createSealer(SECRET, "webhook").open(sealed)).toBe("whsec_abc");
    expect(() => createSealer(SECRET, "idempotency").open(sealed)).toThrow();
    expect(() => createSealer(`${SECRET}x`, "webhook").open(sealed)).toThrow();
  });

  it("still opens values sealed before keys were derived with HKDF", () => {
    expect(createSealer(SECRET, "webhook").open(sealedTheEarlierWay("whsec_old", "webhook"))).toBe("whsec_old");
    expect(() => createSealer(SECRET, "idempotency").open(sealedTheEarlierWay("whsec_old", "webhook"))).toThrow();
  });

  it("refuses a value whose ciphertext was changed", () => {
    const sealed = createSealer(SECRET, "webhook").seal("whsec_abc");
    const changed = sealed.at(-2) === "A" ? "B" : "A";
    const tampered = `${sealed.slice(0, -2)}${changed}${sealed.slice(-1)}`;
    expect(tampered).not.toBe(sealed);
    expect(() => createSealer(SECRET, "webhook").open(tampered)).toThrow();
  });
});
