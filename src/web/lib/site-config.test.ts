/**
 * The server's settings reach the browser in the page's site-config meta tag; a tag the browser
 * cannot read leaves the build's defaults, and the console says so (issue 19 §7).
 */
import { afterEach, expect, it, vi } from "vitest";

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  vi.resetModules();
});

/** Loads the module as a page whose site-config meta tag holds `content`. */
async function loadWithMeta(content: string) {
  vi.stubGlobal("document", {
    querySelector: (selector: string) => (selector === 'meta[name="site-config"]' ? { getAttribute: (name: string) => (name === "content" ? content : null) } : null),
  });
  return import("./site-config");
}

it("takes the server's settings from the meta tag", async () => {
  const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
  const { siteConfig } = await loadWithMeta(JSON.stringify({ siteName: "Acme Gateway" }));
  expect(siteConfig.siteName).toBe("Acme Gateway");
  expect(warn).not.toHaveBeenCalled();
});

it("warns on the console when the meta tag is malformed, and shows the build's defaults", async () => {
  const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
  const { siteConfig } = await loadWithMeta('{"siteName": "Acme');
  vi.resetModules();
  vi.stubGlobal("document", { querySelector: () => null });
  const { siteConfig: buildDefaults } = await import("./site-config");
  expect(siteConfig).toEqual(buildDefaults);
  expect(warn).toHaveBeenCalledTimes(1);
  expect(String(warn.mock.calls[0]?.[0])).toBe("site-config meta is not JSON: using the build's defaults");
});
