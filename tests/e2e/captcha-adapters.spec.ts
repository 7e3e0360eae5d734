import { expect, test, type Page } from "@playwright/test";

/**
 * The browser half of the Aliyun and Tencent captcha adapters, against stand-ins for their
 * scripts that follow the providers' documented browser APIs. (The server half, verification
 * with real request signing, is tested against local fake servers in src/server/providers.)
 */
test.use({ bypassCSP: true });

const PHONE = "13912345678";

async function requestCodeWith(page: Page, settings: object, script: { url: string; body: string }) {
  await page.route("**/api/v1/auth/captcha", (route) => route.fulfill({ json: settings }));
  await page.route(script.url, (route) => route.fulfill({ contentType: "application/javascript", body: script.body }));
  let sent: { telephone: string; captchaResult: string } | null = null;
  await page.route("**/api/v1/auth/phone/verification_code", async (route) => {
    sent = route.request().postDataJSON();
    await route.fulfill({ json: { status: "success", message: "" } });
  });
  await page.goto("/");
  await page.getByTestId("header-login").click();
  await page.getByRole("textbox", { name: "phone number" }).fill(PHONE);
  await page.getByTestId("consent").click();
  await page.getByTestId("get-code").click();
  await expect(page.locator(".ant-message").getByText("code sent successfully", { exact: true })).toBeVisible();
  return sent!;
}

test("Tencent Captcha: the ticket and randstr of a solved challenge go to the server as JSON", async ({ page }) => {
  const url = "https://turing.captcha.qcloud.com/TJCaptcha.js";
  const sent = await requestCodeWith(
    page,
    { provider: "tencent", scriptUrl: url, appId: "190000001" },
    {
      url,
      body: `window.TencentCaptcha = function (appId, callback, options) {
        this.show = function () { setTimeout(function () { callback({ ret: 0, ticket: "t-" + appId, randstr: "@r4nd" }); }, 10); };
      };`,
    },
  );
  expect(sent.telephone).toBe(PHONE);
  expect(JSON.parse(sent.captchaResult)).toEqual({ ticket: "t-190000001", randstr: "@r4nd" });
});

test("Tencent Captcha closed by the user: no code is requested", async ({ page }) => {
  const url = "https://turing.captcha.qcloud.com/TJCaptcha.js";
  let requested = false;
  await page.route("**/api/v1/auth/captcha", (route) => route.fulfill({ json: { provider: "tencent", scriptUrl: url, appId: "1" } }));
  await page.route(url, (route) =>
    route.fulfill({
      contentType: "application/javascript",
      body: `window.TencentCaptcha = function (a, callback) { this.show = function () { callback({ ret: 2 }); }; };`,
    }),
  );
  await page.route("**/api/v1/auth/phone/verification_code", (route) => {
    requested = true;
    return route.abort();
  });
  await page.goto("/");
  await page.getByTestId("header-login").click();
  await page.getByRole("textbox", { name: "phone number" }).fill(PHONE);
  await page.getByTestId("consent").click();
  const getCode = page.getByTestId("get-code");
  await getCode.click();
  // The button spins from the click until the captcha's answer is dealt with: the text and the
  // enabled button below are as they were before the click, so they alone say nothing yet.
  await expect(getCode.getByRole("img", { name: "loading" })).toHaveCount(0);
  await expect(getCode).toHaveText("get code");
  await expect(getCode).toBeEnabled();
  expect(requested).toBe(false);
});

test("Aliyun Captcha 2.0: the captchaVerifyParam goes to the server, with region and prefix configured first", async ({ page }) => {
  const url = "https://o.alicdn.com/captcha-frontend/aliyunCaptcha/AliyunCaptcha.js";
  const sent = await requestCodeWith(
    page,
    { provider: "aliyun", scriptUrl: url, sceneId: "scene-1", prefix: "pfx9", region: "cn" },
    {
      url,
      body: `window.initAliyunCaptcha = function (options) {
        var config = window.AliyunCaptchaConfig;
        document.querySelector(options.button).addEventListener("click", function () {
          options.captchaVerifyCallback("param:" + options.SceneId + ":" + config.region + ":" + config.prefix + ":" + options.mode);
        });
        options.getInstance({});
      };`,
    },
  );
  expect(sent.captchaResult).toBe("param:scene-1:cn:pfx9:popup");
});

test("a provider script that does not load: 'captcha failed to load'", async ({ page }) => {
  const url = "https://turing.captcha.qcloud.com/TJCaptcha.js";
  await page.route("**/api/v1/auth/captcha", (route) => route.fulfill({ json: { provider: "tencent", scriptUrl: url, appId: "1" } }));
  await page.route(url, (route) => route.abort());
  await page.goto("/");
  await page.getByTestId("header-login").click();
  await page.getByRole("textbox", { name: "phone number" }).fill(PHONE);
  await page.getByTestId("consent").click();
  await page.getByTestId("get-code").click();
  await expect(page.locator(".ant-message").getByText("captcha failed to load, please retry later", { exact: true })).toBeVisible();
});
