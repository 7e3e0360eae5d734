import { describe, expect, it, vi } from "vitest";
import { solveAltchaChallenge } from "../../testing/altcha";
import { createAltcha } from "./altcha";

/** Set to make altcha-lib's verifySolution fail inside, as a bug or an exhausted resource would. */
const fault = vi.hoisted(() => ({ error: undefined as Error | undefined }));
vi.mock("altcha-lib", async (importOriginal) => {
  const original = await importOriginal<typeof import("altcha-lib")>();
  return { ...original, verifySolution: (...args: Parameters<typeof original.verifySolution>) => (fault.error ? Promise.reject(fault.error) : original.verifySolution(...args)) };
});

const now = new Date("2026-03-01T08:00:00Z");
const context = { ip: "127.0.0.1", now };
const logged: { fields: { err: unknown }; message: string }[] = [];
const log = { error: (fields: { err: unknown }, message: string) => logged.push({ fields, message }) };
const altcha = createAltcha({ secret: "s".repeat(40), maxNumber: 500, log });

describe("altcha (self-hosted proof of work)", () => {
  it("accepts a solved challenge, named by its nonce, until the challenge expires", async () => {
    const challenge = await altcha.createChallenge(now);
    const verdict = await altcha.verify(await solveAltchaChallenge(challenge), context);
    expect(verdict).toEqual({ ok: true, id: `altcha:${challenge.parameters.nonce}`, validUntil: new Date(now.getTime() + 300_000) });
  });

  it("hides a counter between half the maximum and the maximum", async () => {
    for (let i = 0; i < 5; i++) {
      const payload = JSON.parse(Buffer.from(await solveAltchaChallenge(await altcha.createChallenge(now)), "base64").toString());
      expect(payload.solution.counter).toBeGreaterThanOrEqual(250);
      expect(payload.solution.counter).toBeLessThanOrEqual(500);
    }
  });

  it("refuses a challenge signed with another server's secret", async () => {
    const other = createAltcha({ secret: "o".repeat(40), maxNumber: 500, log });
    const result = await solveAltchaChallenge(await other.createChallenge(now));
    expect(await altcha.verify(result, context)).toEqual({ ok: false, reason: "invalid" });
  });

  it("refuses an expired challenge by the server's clock", async () => {
    const result = await solveAltchaChallenge(await altcha.createChallenge(now));
    expect(await altcha.verify(result, { ...context, now: new Date(now.getTime() + 300_000) })).toEqual({ ok: false, reason: "expired" });
  });

  it("refuses the captcha and logs the error when verifying fails inside", async () => {
    const result = await solveAltchaChallenge(await altcha.createChallenge(now));
    logged.length = 0;
    fault.error = new Error("out of memory");
    try {
      expect(await altcha.verify(result, context)).toEqual({ ok: false, reason: "invalid" });
    } finally {
      fault.error = undefined;
    }
    expect(logged).toEqual([{ fields: { err: expect.objectContaining({ message: "out of memory" }) }, message: "altcha: verifying a solution failed; the captcha was refused" }]);
  });

  it("refuses what is not a payload", async () => {
    for (const result of ["", "%%%", Buffer.from("[]").toString("base64"), Buffer.from('{"challenge":{"parameters":{}}}').toString("base64")]) {
      expect((await altcha.verify(result, context)).ok).toBe(false);
    }
  });
});
