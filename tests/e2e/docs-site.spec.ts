import { expect, test } from "@playwright/test";
import { sidewaysOverflow } from "./support/sideways";


test("/docs lands on the start page, with the site's header and footer and no script but the language switch", async ({ page }) => {
  const response = await page.goto("/docs");
  expect(response?.status()).toBe(200);
  await expect(page).toHaveURL("/docs.html");
  await expect(page.getByRole("heading", { level: 1, name: "Tollgate documentation" })).toBeVisible();
  await expect(page.getByRole("banner").getByRole("link", { name: "Tollgate" })).toHaveAttribute("href", "/");
  for (const name of ["User Agreement", "Privacy Agreement", "Service Level Agreement"]) {
    await expect(page.getByRole("contentinfo").getByRole("link", { name })).toBeVisible();
  }
  await expect(page.locator("script")).toHaveCount(1);
  await expect(page.locator("html")).toHaveAttribute("lang", "en");
  await expect(page.getByRole("link", { name: "简体中文" })).toHaveAttribute("href", "/docs/zh-CN.html");
});

test.describe("the docs' language", () => {
  test("follows the language chosen on the site, to the same section, and the other language's link is a choice that sticks", async ({ page }) => {
    await page.goto("/");
    await page.getByRole("combobox", { name: "Language" }).selectOption("zh-CN");
    await expect(page.locator("html")).toHaveAttribute("lang", "zh-CN");

    await page.goto("/docs/billing#idempotency");
    await expect(page).toHaveURL("/docs/zh-CN/billing.html#idempotency");
    await expect(page.locator("html")).toHaveAttribute("lang", "zh-CN");
    await expect(page.getByRole("heading", { level: 1, name: "计费" })).toBeVisible();
    await expect(page.getByRole("heading", { level: 2, name: /^幂等/ })).toBeInViewport();
    const sidebar = page.getByRole("navigation", { name: "文档目录" });
    await sidebar.getByRole("link", { name: "快速开始" }).click();
    await expect(page).toHaveURL("/docs/zh-CN/quickstart.html");
    await expect(page.locator("pre.shiki").filter({ hasText: "curl -sS -X POST" }).first()).toBeVisible();

    await page.getByRole("link", { name: "English" }).click();
    await expect(page).toHaveURL("/docs/quickstart.html");
    await expect(page.getByRole("heading", { level: 1, name: "Quickstart" })).toBeVisible();
    await page.goto("/docs/zh-CN/errors.html");
    await expect(page).toHaveURL("/docs/errors.html");
    await page.goto("/");
    await expect(page.locator("html")).toHaveAttribute("lang", "en");
  });

  test.describe("for a Chinese browser with no choice made", () => {
    test.use({ locale: "zh-CN" });

    test("opens /docs in Chinese", async ({ page }) => {
      await page.goto("/docs");
      await expect(page).toHaveURL("/docs/zh-CN.html");
      await expect(page.getByRole("heading", { level: 1, name: "Tollgate 文档" })).toBeVisible();
    });
  });

  test("a link to a Chinese page opens it in an English browser with no choice made", async ({ page }) => {
    const response = await page.goto("/docs/zh-CN/quickstart");
    expect(response?.status()).toBe(200);
    await expect(page).toHaveURL("/docs/zh-CN/quickstart.html");
    await expect(page.locator("html")).toHaveAttribute("lang", "zh-CN");
    await expect(page.getByRole("heading", { level: 1, name: "快速开始" })).toBeVisible();
  });
});

test("the sidebar leads from page to page and the table of contents to each section", async ({ page }) => {
  await page.goto("/docs.html");
  const sidebar = page.getByRole("navigation", { name: "Documentation" });
  await sidebar.getByRole("link", { name: "Quickstart" }).click();
  await expect(page).toHaveURL("/docs/quickstart.html");
  await expect(sidebar.getByRole("link", { name: "Quickstart" })).toHaveAttribute("aria-current", "page");
  await page.locator(".docs-toc").getByRole("link", { name: "5. See what it cost" }).click();
  await expect(page).toHaveURL("/docs/quickstart.html#5-see-what-it-cost");
  await expect(page.getByRole("heading", { name: "5. See what it cost" })).toBeInViewport();
  await page.getByRole("link", { name: "Next Authentication" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Authentication" })).toBeVisible();
});

test("a docs address without .html opens the page, with code highlighted", async ({ page }) => {
  await page.goto("/docs/quickstart");
  await expect(page).toHaveURL("/docs/quickstart.html");
  const curl = page.locator("pre.shiki").filter({ hasText: "curl -sS -X POST" });
  await expect(curl).toBeVisible();
  // Colours come from classes in the docs style sheet (no style attributes under the CSP).
  const colours = await curl.locator("span[class^=\"hl-\"]").evaluateAll((spans) => new Set(spans.map((s) => getComputedStyle(s).color)).size);
  expect(colours).toBeGreaterThan(2);
});

test("each tool of the landing page's catalog has its docs page with its price", async ({ page }) => {
  await page.goto("/");
  const echo = page.getByTestId("tool-echo");
  await expect(echo).toBeVisible();
  const price = (await echo.locator(".catalog-price").innerText()).split("/")[0]!.trim();
  await echo.getByRole("link", { name: "Documentation" }).click();
  await expect(page).toHaveURL("/docs/tools/echo.html");
  await expect(page.getByRole("heading", { level: 1, name: "Echo" })).toBeVisible();
  await expect(page.locator(".docs-content table").first()).toContainText(`${price} per call`);
});

test("the console API reference links each endpoint to its section", async ({ page }) => {
  await page.goto("/docs/api.html");
  const link = page.getByRole("link", { name: "/api/v1/tools/user-info" });
  await link.click();
  await expect(page).toHaveURL(/\/docs\/api\.html#.+/);
  await expect(page.getByRole("heading", { name: "The signed-in user, with the balance" })).toBeInViewport();
});

test.describe("on a phone", () => {
  test.use({ viewport: { width: 375, height: 740 } });

  test("the docs fit the screen and the page list comes before the text", async ({ page }) => {
    for (const path of ["/docs/zh-CN/quickstart.html", "/docs/zh-CN/errors.html", "/docs.html", "/docs/quickstart.html", "/docs/api.html", "/docs/errors.html"]) {
      await page.goto(path);
      expect(await sidewaysOverflow(page), "the page scrolls sideways").toBeLessThanOrEqual(0);
    }
    const sidebar = await page.getByRole("navigation", { name: "Documentation" }).boundingBox();
    const heading = await page.getByRole("heading", { level: 1 }).boundingBox();
    expect(sidebar!.y).toBeLessThan(heading!.y);
  });
});

for (const [path, meaning] of [["/docs/zh-CN/errors.html", "含义"], ["/docs/errors.html", "Meaning"]] as const) {
  test.describe(`${path} on a 390 px phone`, () => {
    test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

    test("each table's meaning column is on the screen before the table is scrolled", async ({ page }) => {
      await page.goto(path);
      const screen = await page.evaluate(() => document.documentElement.clientWidth);
      const tables = page.locator(".docs-content table").filter({ has: page.getByRole("columnheader", { name: meaning, exact: true }) });
      await expect(tables).toHaveCount(3);
      for (const table of await tables.all()) {
        const column = (await table.getByRole("columnheader").allInnerTexts()).indexOf(meaning);
        // Every row's meaning, whole within the screen: at least its left edge and a readable width of it.
        const cells = await table.locator("tr").evaluateAll(
          (rows, at) => rows.map((row) => row.children[at]!.getBoundingClientRect()).map(({ left, right }) => ({ left, right })),
          column,
        );
        for (const { left, right } of cells) {
          expect(left).toBeGreaterThanOrEqual(0);
          expect(right, `the ${meaning} column's right edge on the ${screen} px screen`).toBeLessThanOrEqual(screen);
          expect(right - left, "the meaning column's width").toBeGreaterThanOrEqual(120);
        }
      }
    });
  });
}

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the docs work fully", async ({ page }) => {
    await page.goto("/docs");
    await page.getByRole("navigation", { name: "Documentation" }).getByRole("link", { name: "Errors" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Errors" })).toBeVisible();
    // The code is in both tables: the gateway's, and the console API's (a package the balance does not cover).
    await expect(page.getByRole("cell", { name: "insufficient_balance" }).first()).toBeVisible();
    await page.locator(".docs-toc").getByRole("link", { name: "Console API errors" }).click();
    await expect(page).toHaveURL("/docs/errors.html#console-api-errors");
    await page.getByRole("link", { name: "简体中文" }).click();
    await expect(page).toHaveURL("/docs/zh-CN/errors.html");
    await expect(page.locator("html")).toHaveAttribute("lang", "zh-CN");
    await expect(page.getByRole("heading", { level: 1, name: "错误" })).toBeVisible();
  });
});
