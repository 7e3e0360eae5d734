import { describe, expect, it } from "vitest";
import { callerNetwork } from "./network";

describe("the network a user is shown for a caller's address", () => {
  it("is the /24 of an IPv4 address, also when it arrives IPv4-mapped", () => {
    expect(callerNetwork("203.0.113.77")).toBe("203.0.113.0/24");
    expect(callerNetwork("::ffff:198.51.100.9")).toBe("198.51.100.0/24");
  });

  it("is the /48 of an IPv6 address, written short", () => {
    expect(callerNetwork("2001:db8:abcd:12:34::1")).toBe("2001:db8:abcd::/48");
    expect(callerNetwork("2001:0db8:0000:ffff:0000:0000:0000:0001")).toBe("2001:db8::/48");
  });

  it("is 'unknown' for what is not an address", () => {
    expect(callerNetwork("")).toBe("unknown");
    expect(callerNetwork("not-an-ip")).toBe("unknown");
  });
});
