import { expect, test, type Page } from "@playwright/test";
import { CONSOLE_PAGES, PRERENDERED_PATHS } from "../../src/shared/site-routes";
import { loginViaApi, signInPage } from "./support/auth";

/** Issue 42: on a phone no page is wider than the screen, signed out or in. */

const WIDTHS = [360, 390];
const SIGNED_OUT = [...PRERENDERED_PATHS, "/docs.html", ...CONSOLE_PAGES];

/** How far the page reaches past the screen's width (a phone widens its layout viewport to fit, so the screen is the measure). */
async function overflow(page: Page, width: number): Promise<number> {
  return page.evaluate((screen) => document.documentElement.scrollWidth - screen, width);
}

for (const width of WIDTHS) {
  test.describe(`${width} px wide`, () => {
    test.use({ viewport: { width, height: 780 }, isMobile: true, hasTouch: true });

    test("signed out, no page scrolls sideways", async ({ page }) => {
      const wide: string[] = [];
      for (const path of SIGNED_OUT) {
        await page.goto(path);
        await page.waitForLoadState("networkidle");
        if ((await overflow(page, width)) > 0) wide.push(`${path}: ${await overflow(page, width)} px`);
      }
      expect(wide).toEqual([]);
    });

    test("signed in, no console page scrolls sideways", async ({ page, request }) => {
      const { token } = await loginViaApi(request);
      await signInPage(page, token);
      const wide: string[] = [];
      for (const path of CONSOLE_PAGES) {
        await page.goto(path);
        await page.waitForLoadState("networkidle");
        if ((await overflow(page, width)) > 0) wide.push(`${path}: ${await overflow(page, width)} px`);
      }
      expect(wide).toEqual([]);
    });
  });
}
