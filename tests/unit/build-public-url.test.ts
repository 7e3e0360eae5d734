import { describe, expect, it } from "vitest";
import { missingPublicUrlWarning } from "../../scripts/docs/public-url";

describe("a build without PUBLIC_URL", () => {
  it("warns, naming the address the docs' examples carry and how to set it", () => {
    const warning = missingPublicUrlWarning({}, "http://localhost:3000");
    expect(warning).toContain("PUBLIC_URL is not set");
    expect(warning).toContain("http://localhost:3000");
    expect(warning).toContain("PUBLIC_URL=https://");
  });

  it("stays quiet when PUBLIC_URL is set", () => {
    expect(missingPublicUrlWarning({ PUBLIC_URL: "https://api.example.com" }, "https://api.example.com")).toBeNull();
  });
});
