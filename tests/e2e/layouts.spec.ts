import { expect, test } from "@playwright/test";

test.describe("every route renders with its layout", () => {
  for (const [path, layout] of [
    ["/", "home"],
    ["/privacy", "protocol"],
    ["/protocol-serve", "protocol"],
    ["/service-level", "protocol"],
    ["/console/info", "default"],
    ["/console/api-keys", "default"],
    ["/console/apply", "default"],
    ["/console/billing-details", "default"],
    ["/console/charge-details", "default"],
  ] as const) {
    test(`${path} uses the ${layout} layout`, async ({ page }) => {
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
      await page.goto(path);
      await expect(page.locator(`[data-layout="${layout}"]`)).toBeVisible();
      expect(errors.filter((e) => !e.includes("401"))).toEqual([]);
    });
  }
});
