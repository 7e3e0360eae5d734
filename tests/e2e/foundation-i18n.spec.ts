import { expect, test } from "@playwright/test";

test.describe("language", () => {
  test.use({ locale: "zh-CN" });

  test("follows the browser, and the switch changes it and is remembered", async ({ page }) => {
    await page.goto("/");
    const footer = page.getByRole("contentinfo");
    await expect(footer.getByRole("link", { name: "隐私协议" })).toBeVisible();
    await expect(page.locator("html")).toHaveAttribute("lang", "zh-CN");

    await page.getByRole("combobox", { name: "语言" }).selectOption("en");
    await expect(footer.getByRole("link", { name: "Privacy agreement" })).toBeVisible();
    await expect(page.locator("html")).toHaveAttribute("lang", "en");

    await page.reload();
    await expect(page.getByRole("contentinfo").getByRole("link", { name: "Privacy agreement" })).toBeVisible();
    await page.goto("/console/info");
    await expect(page.getByRole("menu", { name: "console" }).getByRole("link", { name: "API keys" })).toBeVisible();
  });

  test("the console and its antd components follow the language", async ({ page }) => {
    await page.goto("/console/api-keys");
    await expect(page.getByRole("menu", { name: "console" }).getByRole("link", { name: "API 密钥" })).toBeVisible();
    await expect(page.getByRole("dialog").getByText("验证码登录")).toBeVisible();
  });
});

test.describe("language for an English browser", () => {
  test.use({ locale: "en-US" });

  test("shows English", async ({ page }) => {
    await page.goto("/privacy");
    await expect(page.getByRole("heading", { name: "Privacy agreement" })).toBeVisible();
    await expect(page.locator("html")).toHaveAttribute("lang", "en");
  });
});
