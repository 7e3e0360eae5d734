import { expect, test, type Page } from "@playwright/test";
import { openLandingPage } from "./support/foundation";
import { E2E_SITE_IDENTITY } from "./support/site-identity";
import { sidewaysOverflow } from "./support/sideways";

const { COMPANY_NAME, CONTACT_EMAIL, LEGAL_EFFECTIVE_DATE } = E2E_SITE_IDENTITY;

const PAGES = [
  { path: "/privacy", testId: "page-privacy", title: "Privacy Agreement", zhTitle: "隐私协议", footerLink: "Privacy Agreement" },
  { path: "/protocol-serve", testId: "page-protocol-serve", title: "User Agreement", zhTitle: "用户协议", footerLink: "User Agreement" },
  { path: "/service-level", testId: "page-service-level", title: "Service Level Agreement", zhTitle: "服务等级协议", footerLink: "Service Level Agreement" },
] as const;

function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  return errors;
}


for (const legal of PAGES) {
  test.describe(legal.path, () => {
    test("names the configured operator, contact and effective date", async ({ page }) => {
      const errors = collectErrors(page);
      await page.goto(legal.path);
      const article = page.getByTestId(legal.testId);
      await expect(article.getByRole("heading", { level: 1, name: legal.title })).toBeVisible();
      await expect(page.getByTestId("legal-effective-date")).toHaveText(`Effective ${LEGAL_EFFECTIVE_DATE} · Operated by ${COMPANY_NAME}`);
      await expect(article.getByText(COMPANY_NAME).first()).toBeVisible();
      const contact = article.getByRole("link", { name: CONTACT_EMAIL }).first();
      await expect(contact).toHaveAttribute("href", `mailto:${CONTACT_EMAIL}`);
      // Nothing is left unfilled.
      await expect(article).not.toContainText("{{");
      expect(errors).toEqual([]);
    });

    test("is readable on a phone, and its contents jump to each section", async ({ page }) => {
      await page.setViewportSize({ width: 375, height: 740 });
      await page.goto(legal.path);
      await expect(page.locator('[data-layout="protocol"]')).toBeVisible();
      expect(await sidewaysOverflow(page), "the page scrolls sideways").toBeLessThanOrEqual(0);
      const contents = page.getByRole("navigation", { name: "Contents" });
      const last = contents.getByRole("link").last();
      const target = (await last.getAttribute("href"))!;
      await last.click();
      await expect(page).toHaveURL(new RegExp(`${target}$`));
      await expect(page.locator(`[id="${target.slice(1)}"]`)).toBeInViewport();
    });

    test("is shown in Simplified Chinese to a reader who chose it, with the same names", async ({ page }) => {
      await page.addInitScript(() => window.localStorage.setItem("lang", "zh-CN"));
      await page.goto(legal.path);
      await expect(page.getByRole("heading", { level: 1, name: legal.zhTitle })).toBeVisible();
      await expect(page.getByTestId("legal-effective-date")).toHaveText(`生效日期：${LEGAL_EFFECTIVE_DATE} · 运营方：${COMPANY_NAME}`);
      await expect(page.getByTestId(legal.testId).getByRole("link", { name: CONTACT_EMAIL }).first()).toBeVisible();
    });

    test("opens from the footer of the landing page", async ({ page }) => {
      await openLandingPage(page);
      await page.getByRole("contentinfo").getByRole("link", { name: legal.footerLink }).click();
      await expect(page).toHaveURL(legal.path);
      await expect(page.getByTestId("legal-effective-date")).toContainText(COMPANY_NAME);
    });
  });
}

test("the prerendered pages carry their whole text before any script runs", async ({ request }) => {
  for (const legal of PAGES) {
    const html = await (await request.get(legal.path)).text();
    expect(html).toContain(`<h1>${legal.title}</h1>`);
    expect(html).toContain('class="legal-body"');
    expect(html.match(/<h2 id=/g)?.length ?? 0).toBeGreaterThan(4);
  }
});

test("the service level states the monthly commitment, the measurement, the credits and how to claim them", async ({ page }) => {
  await page.goto("/service-level");
  const article = page.getByTestId("page-service-level");
  await expect(article).toContainText("at least 99.9% of each calendar month");
  await expect(article.getByRole("heading", { name: "2. How availability is measured" })).toBeVisible();
  await expect(article.getByRole("heading", { name: "3. What does not count as downtime" })).toBeVisible();
  const credits = article.getByRole("table");
  await expect(credits.getByRole("row")).toHaveCount(4);
  await expect(credits).toContainText("below 95.0%");
  await expect(article.getByRole("heading", { name: "5. How to claim a credit" })).toBeVisible();
  await expect(article.getByRole("link", { name: "account page" })).toHaveAttribute("href", "/console/info");
});
