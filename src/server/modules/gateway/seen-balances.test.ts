import { describe, expect, it } from "vitest";
import { EARLY_STARTS_IN_FLIGHT_PER_USER, SeenBalances } from "./seen-balances";

const USER = 1;
const CENT = 10_000n;
const paid = (usageId: number, balance: bigint) => ({ ok: true as const, usageId, balance });
const refused = { ok: false as const, reason: "insufficient_balance" as const };

/** A process that has seen `balance` after its charge with usage row `usageId`. */
function seeing(balance: bigint, usageId = 1): SeenBalances {
  const seen = new SeenBalances();
  seen.send(USER, CENT, false);
  seen.answered(USER, CENT, false, paid(usageId, balance));
  return seen;
}

describe("SeenBalances: whether a call may start upstream before its hold commits", () => {
  it("never before a charge of the user was seen", () => {
    expect(new SeenBalances().send(USER, CENT, true)).toBe(false);
  });

  it("counts every charge sent and not yet answered, not only those started early", () => {
    const seen = seeing(7n * CENT);
    for (let i = 0; i < 7; i++) expect(seen.send(USER, CENT, false)).toBe(false);
    expect(seen.send(USER, CENT, true)).toBe(false);
  });

  it("lets early starts use what the balance seen covers, and no more", () => {
    const seen = seeing(3n * CENT);
    expect([1, 2, 3, 4].map(() => seen.send(USER, CENT, true))).toEqual([true, true, true, false]);
  });

  it("ignores an outcome that committed before the one already seen, even when it comes back after it", () => {
    const seen = seeing(5n * CENT, 10);
    seen.send(USER, CENT, false);
    seen.send(USER, CENT, false);
    seen.answered(USER, CENT, false, paid(12, 3n * CENT));
    seen.answered(USER, CENT, false, paid(11, 4n * CENT));
    expect([1, 2, 3, 4].map(() => seen.send(USER, CENT, true))).toEqual([true, true, true, false]);
  });

  it("forgets the balance after a refusal, and an older outcome answered later does not bring it back", () => {
    const seen = seeing(5n * CENT, 10);
    seen.send(USER, CENT, false);
    seen.send(USER, CENT, false);
    seen.answered(USER, CENT, false, refused);
    seen.answered(USER, CENT, false, paid(9, 6n * CENT));
    expect(seen.send(USER, CENT, true)).toBe(false);
  });

  it("a failed write gives back what it counted and learns nothing", () => {
    const seen = seeing(CENT);
    expect(seen.send(USER, CENT, true)).toBe(true);
    seen.answered(USER, CENT, true, undefined);
    expect(seen.send(USER, CENT, true)).toBe(true);
  });

  it(`starts at most ${EARLY_STARTS_IN_FLIGHT_PER_USER} of a user's calls early at once, whatever the balance`, () => {
    const seen = seeing(1000n * CENT);
    const starts = Array.from({ length: EARLY_STARTS_IN_FLIGHT_PER_USER + 1 }, () => seen.send(USER, CENT, true));
    expect(starts.filter(Boolean)).toHaveLength(EARLY_STARTS_IN_FLIGHT_PER_USER);
    seen.answered(USER, CENT, true, paid(2, 999n * CENT));
    expect(seen.send(USER, CENT, true)).toBe(true);
  });
});
