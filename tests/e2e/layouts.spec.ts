import { expect, test, type Page } from "@playwright/test";
import { USER_INFO, USER_INFO_ROUTE, signIn, watchCspViolations } from "./support/foundation";

const CONSOLE_LINKS = ["Account", "API keys", "Apply for access", "Billing details", "Charge details"];

/** Errors the page reports: uncaught exceptions, console errors and Content-Security-Policy violations. */
async function collectErrors(page: Page): Promise<() => Promise<string[]>> {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  const violations = await watchCspViolations(page);
  return async () => [...errors, ...(await violations())];
}

async function expectSiteChrome(page: Page) {
  await expect(page.getByRole("banner").getByRole("link", { name: "Tollgate" })).toBeVisible();
  const footer = page.getByRole("contentinfo");
  for (const name of ["User Agreement", "Privacy Agreement", "Service Level Agreement"]) {
    await expect(footer.getByRole("link", { name })).toBeVisible();
  }
}

test.describe("every route renders with its layout", () => {
  test("/ uses the home layout", async ({ page }) => {
    const errors = await collectErrors(page);
    const response = await page.goto("/");
    expect(response?.status()).toBe(200);
    await expect(page.locator('[data-layout="home"]')).toBeVisible();
    await expectSiteChrome(page);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    expect(await errors()).toEqual([]);
  });

  for (const [path, testId] of [
    ["/privacy", "page-privacy"],
    ["/protocol-serve", "page-protocol-serve"],
    ["/service-level", "page-service-level"],
  ] as const) {
    test(`${path} uses the protocol layout`, async ({ page }) => {
      const errors = await collectErrors(page);
      const response = await page.goto(path);
      expect(response?.status()).toBe(200);
      await expect(page.locator('[data-layout="protocol"]')).toBeVisible();
      await expectSiteChrome(page);
      // The narrow reading column holds the page.
      await expect(page.locator("main.reading-column").getByTestId(testId)).toBeVisible();
      expect(await errors()).toEqual([]);
    });
  }

  test.describe("console pages, signed in", () => {
    for (const path of ["/console/info", "/console/api-keys", "/console/apply", "/console/billing-details", "/console/charge-details"]) {
      test(`${path} uses the default layout`, async ({ page, request }) => {
        await signIn(page, request);
        const errors = await collectErrors(page);
        await page.route(USER_INFO_ROUTE, (r) => r.fulfill({ json: USER_INFO }));
        const response = await page.goto(path);
        expect(response?.status()).toBe(200);
        await expect(page.locator('[data-layout="default"]')).toBeVisible();
        const menu = page.getByRole("menu", { name: "console" });
        for (const name of CONSOLE_LINKS) await expect(menu.getByRole("link", { name })).toBeVisible();
        await expect(menu.locator(".ant-menu-item-selected")).toHaveCount(1);
        await expect(page.getByTestId("header-balance")).toHaveText("¥12.34");
        await expect(page.getByTestId("sign-out")).toBeVisible();
        expect(await errors()).toEqual([]);
      });
    }
  });

  test("a visitor on a console page sees the console frame and the login modal", async ({ page }) => {
    const errors = await collectErrors(page);
    let userInfoCalls = 0;
    await page.route(USER_INFO_ROUTE, (r) => {
      userInfoCalls += 1;
      return r.continue();
    });
    await page.goto("/console/billing-details");
    await expect(page.locator('[data-layout="default"]')).toBeVisible();
    await expect(page.getByRole("menu", { name: "console" }).getByRole("link", { name: "Billing details" })).toBeVisible();
    await expect(page.getByRole("dialog").getByText("verification code login")).toBeVisible();
    // No session, so the app does not ask for user info.
    expect(userInfoCalls).toBe(0);
    expect(await errors()).toEqual([]);
  });
});
