import { expect, test } from "@playwright/test";
import { USER_INFO, USER_INFO_ROUTE, countDocumentLoads, isSameDocument, markDocument, navigateInApp, openLandingPage, signIn, waitForApp, watchCspViolations } from "./support/foundation";

test.describe("unknown routes", () => {
  test("an unknown address shows the 404 page with HTTP status 404", async ({ page }) => {
    const violations = await watchCspViolations(page);
    const response = await page.goto("/no/such/page");
    expect(response?.status()).toBe(404);
    await expect(page.getByTestId("not-found-page")).toBeVisible();
    await expect(page.getByRole("heading", { name: "404" })).toBeVisible();
    expect(await violations()).toEqual([]);
  });

  test("an unknown address reached inside the app shows the 404 page", async ({ page }) => {
    await page.goto("/");
    await markDocument(page);
    await navigateInApp(page, "/console/nothing-here");
    await expect(page.getByTestId("not-found-page")).toBeVisible();
    expect(await isSameDocument(page)).toBe(true);
  });

  test("a 404 opened directly lets a signed-out reader log in", async ({ page }) => {
    await page.goto("/no-such-page");
    await expect(page.getByTestId("not-found-page")).toBeVisible();
    await waitForApp(page);
    await page.getByTestId("header-login").click();
    await expect(page.getByRole("dialog")).toBeVisible();
  });

  test("a 404 opened directly shows a signed-in reader's balance", async ({ page, request }) => {
    await signIn(page, request);
    await page.route(USER_INFO_ROUTE, (r) => r.fulfill({ json: USER_INFO }));
    await page.goto("/no-such-page");
    await expect(page.getByTestId("not-found-page")).toBeVisible();
    await expect(page.getByTestId("header-balance")).toHaveText("¥12.34");
    await expect(page.getByTestId("header-login")).toHaveCount(0);
  });
});

test.describe("redirects", () => {
  test("/console redirects to /console/info with HTTP 302", async ({ page, request }) => {
    const response = await request.get("/console?tab=1", { maxRedirects: 0 });
    expect(response.status()).toBe(302);
    expect(response.headers().location).toBe("/console/info?tab=1");
    await page.goto("/console");
    await expect(page).toHaveURL("/console/info");
    await expect(page.locator('[data-layout="default"]')).toBeVisible();
  });

  test("the client router sends /console to /console/info", async ({ page }) => {
    await page.goto("/");
    await markDocument(page);
    await navigateInApp(page, "/console");
    await expect(page).toHaveURL("/console/info");
    await expect(page.locator('[data-layout="default"]')).toBeVisible();
    expect(await isSameDocument(page)).toBe(true);
  });

  test("the server appends .html to /docs addresses and keeps the query", async ({ page }) => {
    await page.goto("/docs/a/?x=1");
    await expect(page).toHaveURL("/docs/a.html?x=1");
  });

  test("the client router appends .html to /docs addresses and leaves the app for the page", async ({ page }) => {
    const loads = countDocumentLoads(page);
    await page.goto("/privacy");
    await navigateInApp(page, "/docs/no-such-guide/?x=1");
    await expect(page).toHaveURL("/docs/no-such-guide.html?x=1");
    // The page came from the server (a second document load); there is no such doc, so it is the 404 page.
    await expect(page.getByTestId("not-found-page")).toBeVisible();
    expect(loads.count).toBe(2);
  });
});

test.describe("client-side navigation", () => {
  test("links in the header, footer and console menu navigate without reloading the document", async ({ page, request }) => {
    // Ten navigations, each loading a page's code and data: 23 s at load 12 on two cores, 32 s at 19.
    test.slow();
    await signIn(page, request);
    await page.route(USER_INFO_ROUTE, (r) => r.fulfill({ json: USER_INFO }));
    const loads = countDocumentLoads(page);
    await openLandingPage(page);
    await expect(page.getByTestId("header-balance")).toHaveText("¥12.34");
    await markDocument(page);

    const footer = page.getByRole("contentinfo");
    await footer.getByRole("link", { name: "Privacy agreement" }).click();
    await expect(page).toHaveURL("/privacy");
    await expect(page.locator('[data-layout="protocol"]')).toBeVisible();
    await expect(page.getByTestId("page-privacy")).toBeVisible();

    await page.getByRole("contentinfo").getByRole("link", { name: "User agreement" }).click();
    await expect(page).toHaveURL("/protocol-serve");
    await expect(page.getByTestId("page-protocol-serve")).toBeVisible();

    await page.getByRole("contentinfo").getByRole("link", { name: "Service level" }).click();
    await expect(page).toHaveURL("/service-level");
    await expect(page.getByTestId("page-service-level")).toBeVisible();

    await page.getByRole("banner").getByRole("link", { name: "Console" }).click();
    await expect(page).toHaveURL("/console/info");
    await expect(page.locator('[data-layout="default"]')).toBeVisible();

    const menu = page.getByRole("menu", { name: "console" });
    for (const [name, path] of [
      ["API keys", "/console/api-keys"],
      ["Apply for access", "/console/apply"],
      ["Billing details", "/console/billing-details"],
      ["Charge details", "/console/charge-details"],
      ["Account", "/console/info"],
    ] as const) {
      await menu.getByRole("link", { name }).click();
      await expect(page).toHaveURL(path);
      await expect(menu.getByRole("menuitem", { name })).toHaveClass(/ant-menu-item-selected/);
    }

    await page.getByRole("banner").getByRole("link", { name: "Tollgate" }).click();
    await expect(page).toHaveURL("/");
    await expect(page.locator('[data-layout="home"]')).toBeVisible();

    expect(await isSameDocument(page)).toBe(true);
    expect(loads.count).toBe(1);
  });
});
