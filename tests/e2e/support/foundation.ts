import { expect, type APIRequestContext, type BrowserContextOptions, type Page } from "@playwright/test";
import { loginViaApi, signInPage } from "./auth";
import { E2E_PORT } from "./e2e-env";

const ORIGIN = `http://127.0.0.1:${E2E_PORT}`;
export const USER_INFO_ROUTE = "**/api/v1/tools/user-info";
export const STORED_TOKEN = "e2e-stored-session-token";

/** A real session for a new user, stored in the page the way the app stores it; for pages that call the API. */
export async function signIn(page: Page, request: APIRequestContext): Promise<void> {
  const { token } = await loginViaApi(request);
  await signInPage(page, token);
}

/** A browser that already holds a token, stored where the app keeps it (SPEC.md §9); the server does not know it. */
export function signedInState(token = STORED_TOKEN): NonNullable<BrowserContextOptions["storageState"]> {
  return {
    cookies: [
      {
        name: "token",
        value: token,
        domain: "127.0.0.1",
        path: "/",
        expires: Math.floor(Date.now() / 1000) + 604_800,
        httpOnly: false,
        secure: false,
        sameSite: "Lax",
      },
    ],
    origins: [{ origin: ORIGIN, localStorage: [{ name: "csrf-token", value: token }] }],
  };
}

/** A user-info answer; the header shows the balance floored to two decimals: ¥12.34. */
export const USER_INFO = { id: 1, phone: "138****0000", balance: "12.349999", referralCode: "ABCD1234", createdAt: "2025-01-01T00:00:00.000Z" };

/** Counts the page's full document loads; client-side navigation must not add to it. */
export function countDocumentLoads(page: Page): { readonly count: number } {
  const counter = { count: 0 };
  page.on("request", (request) => {
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) counter.count += 1;
  });
  return counter;
}

/** Marks the current document; the mark survives client-side navigation and vanishes on a reload. */
export async function markDocument(page: Page): Promise<void> {
  await page.evaluate(() => {
    (window as unknown as { __sameDocument?: boolean }).__sameDocument = true;
  });
}

export function isSameDocument(page: Page): Promise<boolean> {
  return page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument === true);
}

/** Whether the app has started in the current document (clicks from then on reach React), and its mark. */
async function documentState(page: Page): Promise<{ started: boolean; marked: boolean }> {
  try {
    return await page.evaluate(() => {
      const w = window as unknown as { __sameDocument?: boolean; __reactRouterDataRouter?: unknown };
      return { started: w.__reactRouterDataRouter !== undefined, marked: w.__sameDocument === true };
    });
  } catch {
    return { started: false, marked: false }; // the document is being replaced
  }
}

/** Waits until the app has started: a prerendered page is visible before its buttons work. */
export async function waitForApp(page: Page): Promise<void> {
  await expect.poll(async () => (await documentState(page)).started).toBe(true);
}

/** Waits for a full reload after `markDocument`: a new document whose app has started. */
export async function waitForReload(page: Page): Promise<void> {
  await expect.poll(() => documentState(page)).toEqual({ started: true, marked: false });
}

/**
 * Counts the answers to the new-build check (builds/latest.json) the page has read, not merely
 * asked for: the app acts on an answer only once it has parsed it, and counting from here sees
 * the count rise in the same turn as the app learns what the answer said.
 */
export async function watchBuildChecks(page: Page): Promise<() => Promise<number>> {
  await page.addInitScript(() => {
    const w = window as unknown as { __buildChecksRead: number };
    w.__buildChecksRead = 0;
    const json = Response.prototype.json;
    Response.prototype.json = function (this: Response) {
      const read = json.call(this);
      if (new URL(this.url).pathname === "/builds/latest.json") {
        read.then(
          () => (w.__buildChecksRead += 1),
          () => undefined,
        );
      }
      return read;
    };
  });
  return () => page.evaluate(() => (window as unknown as { __buildChecksRead: number }).__buildChecksRead);
}

/** Records, across reloads of the tab, whether the error page was ever on screen. */
export async function watchForErrorPage(page: Page): Promise<() => Promise<boolean>> {
  await page.addInitScript(() => {
    new MutationObserver(() => {
      if (document.querySelector('[data-testid="error-page"]')) sessionStorage.setItem("e2e-saw-error-page", "1");
    }).observe(document, { childList: true, subtree: true });
  });
  return () => page.evaluate(() => sessionStorage.getItem("e2e-saw-error-page") === "1");
}

/** Collects the page's Content-Security-Policy violations (an inline script without its hash, say). */
export async function watchCspViolations(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __cspViolations: string[] }).__cspViolations = seen;
    document.addEventListener("securitypolicyviolation", (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  return () => page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations);
}

/** Client-side navigation through the app's own router, for addresses no link in the app points at. */
export async function navigateInApp(page: Page, to: string): Promise<void> {
  await waitForApp(page);
  await page.evaluate((target) => {
    const router = (window as unknown as { __reactRouterDataRouter: { navigate(to: string): Promise<void> } }).__reactRouterDataRouter;
    void router.navigate(target);
  }, to);
}

/** Opens the landing page, its tool catalog in the HTML the server sent. */
export async function openLandingPage(page: Page): Promise<void> {
  await page.goto("/");
  await expect(page.locator(".catalog-card").first()).toBeVisible();
}
