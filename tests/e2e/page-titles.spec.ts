import { expect, test } from "@playwright/test";
import { waitForApp } from "./support/foundation";
import { PAGES } from "./support/pages";

test.describe("each page's tab has a title of its own", () => {
  for (const { path, title, zhTitle } of PAGES) {
    test(`${path}: one <title>, in English and in Chinese`, async ({ page }) => {
      await page.goto(path);
      await waitForApp(page);
      await expect(page).toHaveTitle(title);
      await expect(page.locator("head > title")).toHaveCount(1);

      await page.getByRole("combobox", { name: "Language" }).first().selectOption("zh-CN");
      await expect(page).toHaveTitle(zhTitle);
      await page.reload();
      await expect(page).toHaveTitle(zhTitle);
    });
  }

  test("the HTML of a prerendered page carries its title before any script runs", async ({ request }) => {
    for (const { path, title } of PAGES.filter((p) => !p.path.startsWith("/console"))) {
      const html = await (await request.get(path)).text();
      expect(html.match(/<title>[^<]*<\/title>/g), path).toEqual([`<title>${title}</title>`]);
    }
  });
});

test("the footer, the login modal and the page call the privacy agreement the same", async ({ page }) => {
  await page.goto("/privacy");
  await expect(page.getByRole("heading", { level: 1, name: "Privacy Agreement", exact: true })).toBeVisible();
  await expect(page.getByRole("contentinfo").getByRole("link", { name: "Privacy Agreement", exact: true })).toBeVisible();
  await waitForApp(page);
  await page.getByTestId("header-login").click();
  await expect(page.getByRole("dialog").getByRole("link", { name: "Privacy Agreement", exact: true })).toBeVisible();
});
