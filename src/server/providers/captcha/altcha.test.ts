import { describe, expect, it } from "vitest";
import { solveAltchaChallenge } from "../../testing/altcha";
import { createAltcha } from "./altcha";

const now = new Date("2026-03-01T08:00:00Z");
const context = { ip: "127.0.0.1", now };
const altcha = createAltcha({ secret: "s".repeat(40), maxNumber: 500 });

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
    const other = createAltcha({ secret: "o".repeat(40), maxNumber: 500 });
    const result = await solveAltchaChallenge(await other.createChallenge(now));
    expect(await altcha.verify(result, context)).toEqual({ ok: false, reason: "invalid" });
  });

  it("refuses an expired challenge by the server's clock", async () => {
    const result = await solveAltchaChallenge(await altcha.createChallenge(now));
    expect(await altcha.verify(result, { ...context, now: new Date(now.getTime() + 300_000) })).toEqual({ ok: false, reason: "expired" });
  });

  it("refuses what is not a payload", async () => {
    for (const result of ["", "%%%", Buffer.from("[]").toString("base64"), Buffer.from('{"challenge":{"parameters":{}}}').toString("base64")]) {
      expect((await altcha.verify(result, context)).ok).toBe(false);
    }
  });
});
