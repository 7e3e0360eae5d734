import { expect, test, type APIRequestContext, type Locator } from "@playwright/test";
import { CONSOLE_PAGES, PRERENDERED_PATHS } from "../../src/shared/site-routes";
import { runAdminCli } from "./support/admin-cli";
import { loginViaApi, signInPage } from "./support/auth";
import { sidewaysOverflow } from "./support/sideways";

/** Issue 42: on a phone no page is wider than the screen, signed out or in. */

const WIDTHS = [360, 390];
const SIGNED_OUT = [...PRERENDERED_PATHS, "/docs.html", ...CONSOLE_PAGES];

for (const width of WIDTHS) {
  test.describe(`${width} px wide`, () => {
    test.use({ viewport: { width, height: 780 }, isMobile: true, hasTouch: true });

    test("signed out, no page scrolls sideways", async ({ page }) => {
      const wide: string[] = [];
      for (const path of SIGNED_OUT) {
        await page.goto(path);
        await page.waitForLoadState("networkidle");
        const overflow = await sidewaysOverflow(page);
        if (overflow > 0) wide.push(`${path}: ${overflow} px`);
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
        const overflow = await sidewaysOverflow(page);
        if (overflow > 0) wide.push(`${path}: ${overflow} px`);
      }
      expect(wide).toEqual([]);
    });
  });
}

test.describe("the console menu on a phone", () => {
  test.use({ viewport: { width: 390, height: 780 }, isMobile: true, hasTouch: true });

  test("opens as a drawer over the page, and its button covers nothing of any page", async ({ page, request }) => {
    const { token } = await loginViaApi(request);
    await signInPage(page, token);
    const title = page.getByRole("heading", { level: 2 }).first();
    const content = page.locator(".console-content");
    const trigger = page.locator(".ant-layout-sider-zero-width-trigger");
    for (const path of CONSOLE_PAGES) {
      await page.goto(path);
      await expect(title).toBeVisible();
      // Measured once the layout has settled: the menu collapses into its button after the first paint.
      await expect
        .poll(async () => {
          const [button, shown] = await Promise.all([trigger.boundingBox(), content.locator(":scope > section").boundingBox()]);
          return !!button && !!shown && button.y + button.height <= shown.y;
        }, { message: `the menu button above ${path}, not on it` })
        .toBe(true);
    }
    await page.goto("/console/api-keys");
    await expect(title).toBeVisible();
    const before = await content.boundingBox();

    await trigger.click();
    const menu = page.getByRole("menu", { name: "console" });
    await expect(menu).toBeVisible();
    await expect(menu.getByRole("link").first()).toBeInViewport();
    // The page keeps its width under the open menu instead of being squeezed beside it.
    expect((await content.boundingBox())?.width).toBe(before?.width);
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);

    // Choosing a page closes the drawer on it.
    await menu.getByRole("link", { name: "Charge details" }).click();
    await expect(page).toHaveURL(/\/console\/charge-details$/);
    await expect(menu).not.toBeInViewport();
  });

  for (const locale of ["en-US", "zh-CN"] as const) {
    test.describe(locale, () => {
      test.use({ locale, viewport: { width: 390, height: 844 } });
      test("scrolled, its button covers no text of any page", async ({ page, request }) => {
        await signInPage(page, await userWithAKey(request, true));
        const trigger = page.locator(".ant-layout-sider-zero-width-trigger");
        for (const path of [...CONSOLE_PAGES, "/console/billing-details?tab=calls"]) {
          await page.goto(path);
          await expect(page.getByRole("heading", { level: 2 }).first()).toBeVisible();
          await expect(page.locator("#console-menu")).toHaveAttribute("inert");
          await expect(trigger).toBeVisible();
          await page.waitForLoadState("networkidle");
          // In its final shape: on a starved machine a page's data can be drawn after the network is
          // idle, and a skeleton is not as tall as what replaces it.
          await expect(page.locator(".console-content .ant-skeleton")).toHaveCount(0);
          // Room below the page, so that every line of even a short page can be scrolled up past the button.
          const end = await page.evaluate(() => {
            document.body.style.paddingBottom = `${window.innerHeight}px`;
            return document.querySelector(".console-content")!.getBoundingClientRect().bottom + window.scrollY;
          });
          // From the top to the page's end, a step at a time: at no step does the button stand on a line of the page's text.
          for (let y = 0; y <= end; y += 40) {
            const covered = await page.evaluate((top) => {
              window.scrollTo(0, top);
              const button = document.querySelector(".ant-layout-sider-zero-width-trigger")!.getBoundingClientRect();
              const texts = document.createTreeWalker(document.querySelector(".console-content")!, NodeFilter.SHOW_TEXT);
              const under: string[] = [];
              while (texts.nextNode()) {
                const text = texts.currentNode;
                if (!text.textContent?.trim() || !text.parentElement?.checkVisibility({ visibilityProperty: true, opacityProperty: true })) continue;
                const range = document.createRange();
                range.selectNodeContents(text);
                const over = [...range.getClientRects()].some(
                  (box) => box.width > 0 && box.left < button.right && box.right > button.left && box.top < button.bottom && box.bottom > button.top,
                );
                if (over) under.push(text.textContent.trim().slice(0, 40));
              }
              return { at: window.scrollY, under };
            }, y);
            expect(covered.under, `${path} scrolled to ${covered.at} px: text under the menu button`).toEqual([]);
            expect(Math.round(covered.at), `${path} scrolls to ${y} px`).toBe(y);
          }
        }
      });
    });
  }

  test("is reached and opened by keyboard, and while closed its links are out of the keyboard's way", async ({ page, request }) => {
    const { token } = await loginViaApi(request);
    await signInPage(page, token);
    await page.goto("/console/api-keys");
    await expect(page.getByRole("heading", { level: 2 }).first()).toBeVisible();
    const toggle = page.getByRole("button", { name: "Console menu" });
    await expect(toggle).toHaveAttribute("aria-expanded", "false");
    await expect(page.locator("#console-menu")).toHaveAttribute("inert");
    const inMenu = () => page.evaluate(() => document.activeElement?.closest("#console-menu") != null);
    for (let i = 0; i < 15; i++) {
      await page.keyboard.press("Tab");
      expect(await inMenu(), `tab ${i + 1} reached the closed menu`).toBe(false);
    }
    await toggle.focus();
    await page.keyboard.press("Enter");
    await expect(toggle).toHaveAttribute("aria-expanded", "true");
    await expect(page.locator("#console-menu")).not.toHaveAttribute("inert");
    const menu = page.getByRole("menu", { name: "console" });
    await expect(menu.getByRole("link").first()).toBeInViewport();
    await page.keyboard.press("Shift+Tab");
    expect(await inMenu(), "the open menu's links take the focus").toBe(true);
  });
});

test.describe("the money tables on a phone", () => {
  test.use({ viewport: { width: 360, height: 780 }, isMobile: true, hasTouch: true });

  for (const [path, table] of [["/console/billing-details", "billing-table"], ["/console/charge-details", "credits-table"]] as const) {
    test(`${path} keeps its first column in view while the rest scrolls`, async ({ page, request }) => {
      const { token } = await loginViaApi(request);
      await signInPage(page, token);
      await page.goto(path);
      const first = page.getByTestId(table).locator("thead th").first();
      await expect(first).toBeVisible();
      const before = await first.boundingBox();
      const scrolled = await page
        .getByTestId(table)
        .locator(".ant-table-content, .ant-table-body")
        .first()
        .evaluate((el) => {
          el.scrollTo({ left: 10_000 });
          return el.scrollLeft;
        });
      expect(scrolled, "the table is wider than the phone").toBeGreaterThan(0);
      await expect.poll(async () => (await first.boundingBox())?.x).toBe(before?.x);
    });
  }
});

/** A new user's token, with one API key; with `charged`, also an operator's credit and one call charged to it. */
async function userWithAKey(request: APIRequestContext, charged = false): Promise<string> {
  const { token, phone } = await loginViaApi(request);
  const created = await request.post("/api/v1/console/keys", { data: { name: "phone" }, headers: { authorization: `Bearer ${token}` } });
  expect(created.status(), await created.text()).toBe(201);
  if (charged) {
    expect((await runAdminCli("credit", phone, "1", "--reason", "phone layout e2e")).code).toBe(0);
    const { secret } = (await created.json()) as { secret: string };
    const call = await request.post("/v1/tools/qrcode", { data: { text: "https://example.com", format: "svg" }, headers: { authorization: `Bearer ${secret}` } });
    expect(call.status(), await call.text()).toBe(200);
  }
  return token;
}

/** The first row's cell under the column headed `header`. */
async function firstRowCell(table: Locator, header: string): Promise<Locator> {
  const row = table.locator("tbody tr.ant-table-row").first();
  await expect(row).toBeVisible();
  const column = (await table.locator("thead th").allInnerTexts()).findIndex((text) => text.trim() === header);
  expect(column, `a column headed ${header}`).toBeGreaterThanOrEqual(0);
  return row.locator("td").nth(column);
}

const AMOUNT = { "en-US": "Amount", "zh-CN": "金额" } as const;

for (const locale of ["en-US", "zh-CN"] as const) {
  test.describe(`the console's tables on a 390 px phone, ${locale}`, () => {
    test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale });

    test("a charge's and a credit's amount are on the screen before the table is scrolled", async ({ page, request }) => {
      await signInPage(page, await userWithAKey(request, true));
      for (const [path, table] of [["/console/billing-details", "billing-table"], ["/console/charge-details", "credits-table"]] as const) {
        await page.goto(path);
        const amount = await firstRowCell(page.getByTestId(table), AMOUNT[locale]);
        const [cell, clip] = await Promise.all([amount.boundingBox(), page.getByTestId(table).locator(".ant-table-content, .ant-table-body").first().boundingBox()]);
        const screen = await page.evaluate(() => document.documentElement.clientWidth);
        // Within the screen, and within the table's own box, which clips what it would scroll to.
        expect.soft(cell!.x + cell!.width, `${path}: the amount's right edge, on the ${screen} px screen`).toBeLessThanOrEqual(Math.min(screen, clip!.x + clip!.width));
        expect(await sidewaysOverflow(page), path).toBeLessThanOrEqual(0);
      }
    });

    test("a call's amount is on the screen of the call log before the table is scrolled", async ({ page, request }) => {
      const token = await userWithAKey(request, true);
      // The call log is written in batches after the answer.
      await expect
        .poll(async () => ((await (await request.get("/api/v1/console/calls", { headers: { authorization: `Bearer ${token}` } })).json()) as { items: unknown[] }).items.length)
        .toBe(1);
      await signInPage(page, token);
      await page.goto("/console/billing-details?tab=calls");
      const table = page.getByTestId("calls-table");
      const amount = await firstRowCell(table, AMOUNT[locale]);
      await expect(amount).toHaveText(/^¥\d+\.\d+$/);
      const [cell, clip] = await Promise.all([amount.boundingBox(), table.locator(".ant-table-content, .ant-table-body").first().boundingBox()]);
      const screen = await page.evaluate(() => document.documentElement.clientWidth);
      expect(cell!.x, "the amount's left edge").toBeGreaterThanOrEqual(0);
      expect(cell!.x + cell!.width, `the amount's right edge, on the ${screen} px screen`).toBeLessThanOrEqual(Math.min(screen, clip!.x + clip!.width));
      expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
    });

    test("an API key's column is not under its actions", async ({ page, request }) => {
      await signInPage(page, await userWithAKey(request));
      await page.goto("/console/api-keys");
      const key = page.getByTestId("key-masked").first();
      await expect(key).toBeVisible();
      // Its start, middle and end: whatever the browser shows there is the key itself.
      const shown = await key.evaluate((el) => {
        const { left, right, top, height } = el.getBoundingClientRect();
        return [left + 2, (left + right) / 2, right - 2].map((x) => el.contains(document.elementFromPoint(x, top + height / 2)));
      });
      expect(shown).toEqual([true, true, true]);
    });
  });
}
