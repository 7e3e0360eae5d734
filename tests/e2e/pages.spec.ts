/**
 * The pages themselves: a Content-Security-Policy with no `unsafe-inline` that every page lives
 * with, no layout shift on the landing page, and the rough edges a new user met (issue 16).
 */
import { expect, test, type Page } from "@playwright/test";
import { loginViaApi, readLatestCode, signInPage } from "./support/auth";
import { isSameDocument, markDocument, waitForApp } from "./support/foundation";
import { startSplitDocumentProxy } from "./support/split-document-proxy";

const PUBLIC_PAGES = ["/", "/privacy", "/protocol-serve", "/service-level", "/docs.html", "/docs/quickstart.html"];
const CONSOLE_PAGES = ["/console/info", "/console/api-keys", "/console/apply", "/console/billing-details", "/console/charge-details"];

/** Records every CSP violation and console error from the first script on. */
async function watchViolations(page: Page): Promise<string[]> {
  const problems: string[] = [];
  await page.exposeFunction("__reportViolation", (text: string) => problems.push(text));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      (window as unknown as { __reportViolation: (t: string) => void }).__reportViolation(
        `${e.effectiveDirective} refused ${e.blockedURI || "inline"} at ${e.sourceFile}:${e.lineNumber}`,
      );
    });
  });
  page.on("console", (message) => {
    if (message.type() === "error" && /Content Security Policy/i.test(message.text())) problems.push(message.text());
  });
  return problems;
}

test("every page is sent with a CSP that has no unsafe-inline and a fresh style nonce", async ({ request }) => {
  const nonces = new Set<string>();
  for (const path of [...PUBLIC_PAGES, "/console/info", "/console/info"]) {
    const res = await request.get(path);
    expect(res.status(), path).toBe(200);
    const csp = res.headers()["content-security-policy"]!;
    expect(csp, path).not.toContain("unsafe-inline");
    expect(csp, path).not.toContain("unsafe-eval");
    const nonce = /style-src 'self' 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
    expect(nonce, `${path}: ${csp}`).toBeTruthy();
    expect(await res.text(), path).toContain(`<meta property="csp-nonce" nonce="${nonce}">`);
    nonces.add(nonce!);
  }
  expect(nonces.size, "one nonce per response").toBe(PUBLIC_PAGES.length + 2);
  const api = await request.get("/api/v1/health");
  expect(api.headers()["content-security-policy"]).not.toContain("unsafe-inline");
});

test("public pages render under the CSP without a violation", async ({ page }) => {
  test.setTimeout(180_000); // many pages, one after another, on a shared machine
  const problems = await watchViolations(page);
  for (const path of PUBLIC_PAGES) {
    await page.goto(path);
    await expect(page.locator("h1").first(), path).toBeVisible({ timeout: 30_000 });
  }
  // The docs' code is coloured by classes, not by the style attributes the CSP refuses.
  await page.goto("/docs/quickstart.html");
  const block = page.locator("pre.shiki").first();
  await expect(block).toBeVisible();
  expect(await block.getAttribute("style")).toBeNull();
  const colours = await block.locator("span[class*='hl-']").evaluateAll((spans) => new Set(spans.map((s) => getComputedStyle(s).color)).size);
  expect(colours, "highlighted in several colours").toBeGreaterThan(1);
  // The login modal is antd, styled through the nonce; its captcha is the altcha widget.
  await page.goto("/");
  await page.getByTestId("header-login").click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toBeVisible();
  await expect(page.locator(".ant-modal-wrap")).toHaveCSS("position", "fixed");
  expect(problems).toEqual([]);
});

test("the console pages render under the CSP without a violation, antd styled", async ({ page, request }) => {
  test.setTimeout(180_000);
  const problems = await watchViolations(page);
  const { token } = await loginViaApi(request);
  await signInPage(page, token);
  for (const path of CONSOLE_PAGES) {
    await page.goto(path);
    await expect(page.getByRole("main").getByRole("heading").first(), path).toBeVisible({ timeout: 30_000 });
    // antd's styles reached the page: the menu's selected item has its theme colour.
    await expect(page.locator(".ant-menu-item-selected")).toHaveCSS("color", "rgb(15, 118, 110)");
    expect(await antdRulesWrittenAtRunTime(page), `${path}: antd's rules come from the console's stylesheet`).toEqual([]);
  }
  await page.goto("/console/api-keys");
  await page.getByTestId("create-key").click();
  await expect(page.getByRole("dialog", { name: "Create an API key" })).toBeVisible();
  await expect(page.locator(".ant-modal-wrap")).toHaveCSS("position", "fixed");
  expect(await antdRulesWrittenAtRunTime(page)).toEqual([]);
  expect(problems).toEqual([]);
});

/**
 * The antd components whose rules a <style> element carries: antd writes them as it renders,
 * unless the console's stylesheet (decision 034) has them. Only the theme's CSS variables
 * (declarations starting `--`) and the icon base style are still written at run time.
 */
function antdRulesWrittenAtRunTime(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const components = new Set<string>();
    for (const style of document.querySelectorAll("style")) {
      for (const rule of (style.textContent ?? "").matchAll(/\.ant-([a-z]+)[^{}]*\{\s*[a-z]/g)) components.add(rule[1]!);
    }
    return [...components];
  });
}

test("a console page reached from the landing page in the app is styled by the same stylesheet", async ({ page, request }) => {
  const problems = await watchViolations(page);
  const { token } = await loginViaApi(request);
  await signInPage(page, token);
  await page.goto("/");
  await waitForApp(page);
  await markDocument(page);
  await page.getByTestId("account-badge").click();
  await expect(page).toHaveURL(/\/console\/info$/);
  await expect(page.locator(".ant-menu-item-selected")).toHaveCSS("color", "rgb(15, 118, 110)");
  // Laid out by antd's rules, not the browser's: the sider is 220 px wide on a desktop screen.
  await expect(page.locator(".ant-layout-sider")).toHaveCSS("width", "220px");
  expect(await antdRulesWrittenAtRunTime(page)).toEqual([]);
  expect(await isSameDocument(page), "the router rendered the console, no page load").toBe(true);
  expect(problems).toEqual([]);
});

/** Sums every layout shift not caused by input, from the first paint on (what Lighthouse calls CLS, unwindowed). */
async function watchLayoutShift(page: Page): Promise<() => Promise<number>> {
  await page.addInitScript(() => {
    const w = window as unknown as { __cls: number };
    w.__cls = 0;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[]) {
        if (!entry.hadRecentInput) w.__cls += entry.value;
      }
    }).observe({ type: "layout-shift", buffered: true });
  });
  return async () => {
    // Let the last render and any late font or image settle before reading the sum.
    await page.waitForLoadState("networkidle");
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    return page.evaluate(() => (window as unknown as { __cls: number }).__cls);
  };
}

test("the landing page does not shift: the server's catalog is in the HTML, and the app asks for it no more", async ({ page }) => {
  const layoutShift = await watchLayoutShift(page);
  const catalogRequests: string[] = [];
  page.on("request", (request) => {
    if (new URL(request.url()).pathname === "/api/v1/tools") catalogRequests.push(request.url());
  });
  await page.goto("/");
  await waitForApp(page);
  await expect(page.getByTestId("tool-echo")).toBeVisible();
  // An open tool's card has no approval note; one that needs approval says so.
  await expect(page.getByTestId("tool-echo").locator(".catalog-approval")).toBeHidden();
  await expect(page.getByTestId("tool-pinyin").locator(".catalog-approval")).toHaveText("approval required");
  expect(await layoutShift()).toBe(0);
  expect(catalogRequests).toEqual([]);
});

test("a signed-in reader gets a Try it link on each tool's card, which opens the tool in Try it; a visitor does not", async ({ page, request }) => {
  await page.goto("/");
  await waitForApp(page);
  await expect(page.getByTestId("header-login")).toBeVisible();
  await expect(page.getByTestId("tool-echo").getByRole("link", { name: "Try it" })).toBeHidden();

  const { token } = await loginViaApi(request);
  await signInPage(page, token);
  await page.goto("/");
  await waitForApp(page);
  const tryEcho = page.getByTestId("tool-echo").getByRole("link", { name: "Try it" });
  await expect(tryEcho).toBeVisible();
  await expect(tryEcho).toHaveAttribute("href", "/console/api-keys?try=echo");
  await page.locator(".language-switch").selectOption("zh-CN");
  await expect(page.getByTestId("tool-echo").getByRole("link", { name: "在线试用" })).toBeVisible();
  await page.locator(".language-switch").selectOption("en");
  await tryEcho.click();
  await expect(page).toHaveURL("/console/api-keys?try=echo");
  await expect(page.getByTestId("try-drawer")).toBeVisible({ timeout: 30_000 });
});

test("the landing page reached in the app from another page shows the server's catalog too", async ({ page }) => {
  await page.goto("/privacy");
  await waitForApp(page);
  await markDocument(page);
  await page.locator(".site-header .brand").click();
  await expect(page).toHaveURL("/");
  await expect(page.getByTestId("tool-pinyin").locator(".catalog-approval")).toHaveText("approval required");
  expect(await isSameDocument(page)).toBe(true);
});

for (const path of ["/privacy", "/protocol-serve", "/service-level"]) {
  test(`${path} does not shift while it loads and hydrates`, async ({ page }) => {
    const layoutShift = await watchLayoutShift(page);
    await page.goto(path);
    await expect(page.locator("h1").first()).toBeVisible();
    expect(await layoutShift()).toBe(0);
  });
}

test.describe("a page that arrives in two pieces, as on a slow network", () => {
  for (const path of ["/", "/privacy", "/protocol-serve", "/service-level"]) {
    test(`${path} is first painted whole, so nothing moves`, async ({ page, baseURL }) => {
      // Cut inside the header, whose end would grow as its select and button arrive.
      const proxy = await startSplitDocumentProxy(baseURL!, '<option value="en"');
      try {
        const layoutShift = await watchLayoutShift(page);
        await page.goto(proxy.url + path);
        await expect(page.locator("h1").first()).toBeVisible();
        expect(await layoutShift()).toBe(0);
      } finally {
        await proxy.close();
      }
    });
  }
});

/** Lighthouse's mobile run slows the CPU four times: data and hydration then land after the first paint. */
async function slowCpuLikeLighthouse(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
}

test.describe("on a phone the size and speed Lighthouse emulates", () => {
  test.use({ viewport: { width: 412, height: 823 }, isMobile: true, hasTouch: true });
  for (const path of ["/", "/privacy", "/protocol-serve", "/service-level", "/docs/quickstart.html", "/docs/zh-CN/quickstart.html"]) {
    test(`${path} does not shift`, async ({ page }) => {
      await slowCpuLikeLighthouse(page);
      const layoutShift = await watchLayoutShift(page);
      await page.goto(path);
      await expect(page.locator("h1").first()).toBeVisible();
      expect(await layoutShift()).toBe(0);
    });
  }
});

test.describe("console pages on a phone the size and speed Lighthouse emulates", () => {
  test.use({ viewport: { width: 412, height: 823 }, isMobile: true, hasTouch: true });
  test("show their data without moving what is already on screen", async ({ page, request }) => {
    test.setTimeout(120_000);
    const { token } = await loginViaApi(request);
    await signInPage(page, token);
    await slowCpuLikeLighthouse(page);
    for (const path of CONSOLE_PAGES) {
      const layoutShift = await watchLayoutShift(page);
      await page.goto(path);
      await expect(page.getByRole("main").getByRole("heading").first(), path).toBeVisible({ timeout: 30_000 });
      await expect(page.getByTestId("page-loading"), path).toHaveCount(0);
      expect(await layoutShift(), path).toBe(0);
    }
  });
});

test.describe("before any script has run", () => {
  test.use({ javaScriptEnabled: false });
  test("a console page already shows the site's bar", async ({ page }) => {
    await page.goto("/console/info");
    await expect(page.getByTestId("page-frame")).toBeVisible();
    await expect(page.getByTestId("page-frame")).toHaveText("Tollgate");
  });

  test("a console page already shows its title and intro", async ({ page }) => {
    await page.goto("/console/apply");
    await expect(page.getByRole("heading", { level: 2 })).toHaveAccessibleName("Apply for access");
    await expect(page.getByText("Some tools need approval before your API keys may call them.")).toBeVisible();
    await page.goto("/console/api-keys");
    await expect(page.getByRole("heading", { level: 2 })).toHaveAccessibleName("API keys");
    await page.goto("/console/info");
    await expect(page.getByRole("heading", { level: 2 })).toHaveAccessibleName("Account");
    await expect(page.getByText("Your balance and how long it lasts, your calls over the last 30 days")).toBeVisible();
  });
});

test.describe("a console page's frame before the app's code has loaded", () => {
  test.use({ locale: "zh-CN" });
  test("is in the language the page will choose", async ({ page }) => {
    await page.route("**/assets/*.js", (route) => route.abort());
    await page.goto("/console/billing-details");
    await expect(page.getByRole("heading", { level: 2 })).toHaveAccessibleName("消费明细");
    await expect(page.getByText("Every charged call")).toBeHidden();
    await expect(page.getByText("每一次扣费的调用：", { exact: false })).toBeVisible();
  });
});

test("a console page's frame gives way to the page: one title, the page's own", async ({ page, request }) => {
  const { token } = await loginViaApi(request);
  await signInPage(page, token);
  await page.goto("/console/apply");
  await expect(page.getByTestId("console-apply")).toBeVisible();
  await expect(page.getByRole("heading", { level: 2, name: "Apply for access" })).toHaveCount(1);
  await expect(page.locator("#console-frame")).toHaveCount(0);
});

test("a console page requests no script or stylesheet of antd's before its first contentful paint, then shows its data (decision 042)", async ({ page, request }) => {
  const { token } = await loginViaApi(request);
  await signInPage(page, token);
  await page.goto("/console/apply");
  await expect(page.getByTestId("console-apply")).toBeVisible();
  await expect(page.getByRole("heading", { level: 2, name: "Apply for access" })).toHaveCount(1);
  const { paint, requests } = await page.evaluate(() => ({
    paint: performance.getEntriesByName("first-contentful-paint")[0]?.startTime,
    requests: performance
      .getEntriesByType("resource")
      .filter((e) => /\.js$|\/antd-console-/.test(new URL(e.name).pathname))
      .map((e) => ({ url: e.name, startTime: e.startTime })),
  }));
  expect(paint).toBeDefined();
  expect(requests.filter((r) => r.url.endsWith(".css")).length).toBeGreaterThan(0);
  for (const r of requests) expect(r.startTime, r.url).toBeGreaterThanOrEqual(paint!);
});

test("the site header stays on one line on a 390 px phone", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  for (const path of ["/", "/privacy", "/docs.html"]) {
    await page.goto(path);
    const header = page.locator(".site-header");
    const items = header.locator(":scope > *");
    const boxes = await items.evaluateAll((els) => els.map((el) => el.getBoundingClientRect()).map((r) => ({ top: r.top, bottom: r.bottom, right: r.right })));
    const headerBox = (await header.boundingBox())!;
    expect(headerBox.height, path).toBeLessThanOrEqual(64);
    for (const box of boxes) {
      expect(box.bottom, path).toBeLessThanOrEqual(headerBox.y + headerBox.height);
      expect(box.right, path).toBeLessThanOrEqual(390);
    }
    // The name is hidden from sight only: the brand link still says whose site it is.
    await expect(header.getByRole("link", { name: "Tollgate" })).toBeVisible();
  }
});

test("the docs header shows the app's SVG mark, not an emoji", async ({ page }) => {
  await page.goto("/docs.html");
  const mark = page.locator(".site-header .brand img.brand-mark");
  await expect(mark).toHaveAttribute("src", "/favicon.svg");
  expect(await mark.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
  await expect(page.locator(".site-header .brand")).not.toContainText("⛩");
});

test.describe("a public page's code, asked for once the page is painted (decision 040)", () => {
  for (const path of ["/", "/privacy"]) {
    test(`${path} requests no script before its first contentful paint, then hydrates`, async ({ page }) => {
      await page.goto(path);
      await waitForApp(page);
      const { paint, scripts } = await page.evaluate(() => ({
        paint: performance.getEntriesByName("first-contentful-paint")[0]?.startTime,
        scripts: performance
          .getEntriesByType("resource")
          .filter((e) => new URL(e.name).pathname.endsWith(".js"))
          .map((e) => ({ url: e.name, startTime: e.startTime })),
      }));
      expect(paint).toBeDefined();
      expect(scripts.length).toBeGreaterThan(0);
      for (const script of scripts) expect(script.startTime, script.url).toBeGreaterThanOrEqual(paint!);
    });
  }

  /** Holds every script request until `release()`: the page is painted and its buttons seen, the app not started. */
  async function holdScripts(page: Page): Promise<{ requested: Promise<void>; release: () => void }> {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let requested!: () => void;
    const firstRequest = new Promise<void>((resolve) => (requested = resolve));
    await page.route("**/assets/*.js", async (route) => {
      requested();
      await released;
      await route.continue();
    });
    return { requested: firstRequest, release };
  }

  const appStarted = (page: Page) => page.evaluate(() => "__reactRouterDataRouter" in window);

  test("a click on Log in made before the app has started opens the dialog once it has", async ({ page }) => {
    const scripts = await holdScripts(page);
    await page.goto("/", { waitUntil: "commit" });
    await scripts.requested;
    await page.getByTestId("header-login").click();
    expect(await appStarted(page), "the click came before the app").toBe(false);
    scripts.release();
    await expect(page.getByRole("dialog", { name: "verification code login" })).toBeVisible();
  });

  test("a signed-in user's click on the landing page's button, made before the app started, opens the console", async ({ page, request }) => {
    await signInPage(page, (await loginViaApi(request)).token);
    const scripts = await holdScripts(page);
    await page.goto("/", { waitUntil: "commit" });
    await scripts.requested;
    // The prerendered page is the signed-out one: its button says "Get started".
    await page.getByTestId("cta").click();
    expect(await appStarted(page), "the click came before the app").toBe(false);
    scripts.release();
    await expect(page).toHaveURL(/\/console\/info$/);
    await expect(page.getByRole("dialog")).toHaveCount(0);
  });

  test("a page whose code fails to load reloads once, and starts", async ({ page }) => {
    // The first load of the page cannot get the client entry, however often it asks (a deploy since its HTML came).
    let documentLoads = 0;
    page.on("request", (request) => {
      if (request.isNavigationRequest()) documentLoads++;
    });
    await page.route("**/assets/entry.client-*.js", (route) => (documentLoads < 2 ? route.abort() : route.continue()));
    await page.goto("/");
    await waitForApp(page);
    expect(documentLoads).toBe(2);
    await page.getByTestId("header-login").click();
    await expect(page.getByRole("dialog", { name: "verification code login" })).toBeVisible();
  });

  test("a language chosen before the app has started is applied once it has", async ({ page }) => {
    const scripts = await holdScripts(page);
    await page.goto("/privacy", { waitUntil: "commit" });
    await scripts.requested;
    await page.getByRole("combobox", { name: "Language" }).selectOption("zh-CN");
    expect(await appStarted(page), "the choice came before the app").toBe(false);
    scripts.release();
    await expect(page.getByTestId("header-login")).toHaveText("登录");
    await expect(page.getByRole("combobox", { name: "语言" })).toHaveValue("zh-CN");
    expect(await page.evaluate(() => localStorage.getItem("lang"))).toBe("zh-CN");
  });

  test("the last language chosen stands, though an earlier choice's messages arrive after it", async ({ page }) => {
    await page.goto("/privacy");
    await waitForApp(page);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let catalogue = "";
    await page.route("**/assets/zh-CN-*.js", async (route) => {
      catalogue = route.request().url();
      await released;
      await route.continue();
    });
    await page.getByRole("combobox", { name: "Language" }).selectOption("zh-CN");
    await expect.poll(() => catalogue).not.toBe("");
    await page.getByRole("combobox", { name: "Language" }).selectOption("en");
    release();
    // Once the Chinese messages have been evaluated and every task queued after them has run.
    await page.evaluate(async (url) => {
      await import(url);
      await new Promise((resolve) => setTimeout(resolve, 0));
    }, catalogue);
    await expect(page.getByTestId("header-login")).toHaveText("Log in");
    expect(await page.evaluate(() => document.documentElement.lang)).toBe("en");
  });

  test("a referral link's code is sent at sign-up though a link was followed before the app started", async ({ page, request }) => {
    const referrer = await loginViaApi(request);
    const { referralCode } = (await (await request.get("/api/v1/tools/user-info", { headers: { authorization: `Bearer ${referrer.token}` } })).json()) as {
      referralCode: string;
    };
    const scripts = await holdScripts(page);
    await page.goto(`/?r=${referralCode}`, { waitUntil: "commit" });
    await scripts.requested;
    // Not the router's yet: a page load, which leaves the query behind.
    await page.getByRole("link", { name: "Privacy agreement" }).first().click();
    await expect(page).toHaveURL(/\/privacy$/);
    scripts.release();
    const phone = `139${String(Math.floor(Math.random() * 1e8)).padStart(8, "0")}`;
    await page.getByTestId("header-login").click();
    await page.getByRole("textbox", { name: "phone number" }).fill(phone);
    await page.getByTestId("consent").click();
    await page.getByTestId("get-code").click();
    await page.getByRole("textbox", { name: "verification code" }).fill(await readLatestCode(phone));
    const login = page.waitForRequest("**/api/v1/auth/phone/login");
    await page.getByTestId("login-submit").click();
    expect((await login).postDataJSON()).toMatchObject({ telephone: phone, recommendCode: referralCode });
  });
});
