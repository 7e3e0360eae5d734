import { expect, test, type Page } from "@playwright/test";
import { signIn, waitForApp } from "./support/foundation";
import { NOT_FOUND_PATH, PAGES } from "./support/pages";

/** Everything the page writes to the browser's console beyond plain logs, and what it throws. */
function collectConsole(page: Page): string[] {
  const messages: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "warning" || m.type() === "error") messages.push(`${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => messages.push(`pageerror: ${e.message}`));
  return messages;
}

const PATHS = [...PAGES.map((p) => p.path), NOT_FOUND_PATH];

for (const signedIn of [false, true]) {
  test(`no page warns or errs in the browser's console, ${signedIn ? "signed in" : "signed out"}`, async ({ page, request }) => {
    if (signedIn) await signIn(page, request);
    const messages = collectConsole(page);
    for (const path of PATHS) {
      await page.goto(path);
      await waitForApp(page);
      // The page as the reader sees it: its content (or the login modal, or the 404) in place.
      await expect(page.locator('main, [data-layout="default"] .console-content > *, [role="dialog"]').first()).toBeVisible();
      await page.waitForLoadState("networkidle");
      // The browser's own line about the 404 document is the status the address deserves.
      const expected = path === NOT_FOUND_PATH ? ["error: Failed to load resource: the server responded with a status of 404 (Not Found)"] : [];
      expect(messages.splice(0), path).toEqual(expected);
    }
  });
}
