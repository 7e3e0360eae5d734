import { expect, test, type Route } from "@playwright/test";
import { STORED_TOKEN, USER_INFO_ROUTE, signedInState } from "./support/foundation";

/** SPEC.md §8: the shared client's toasts, driven by the user-info call the app makes at start. */
test.describe("the error catalogue", () => {
  test.use({ storageState: signedInState() });

  const cases: { name: string; answer: (route: Route) => Promise<void>; text: string }[] = [
    { name: "404", answer: (r) => r.fulfill({ status: 404, json: { code: "not_found", message: "no such user" } }), text: "server resource does not exist" },
    { name: "500", answer: (r) => r.fulfill({ status: 500, json: { code: "internal", message: "boom" } }), text: "server internal error" },
    { name: "403", answer: (r) => r.fulfill({ status: 403, json: { code: "forbidden", message: "nope" } }), text: "no permission to access this resource" },
    { name: "429", answer: (r) => r.fulfill({ status: 429, json: { code: "rate_limited", message: "slow down" } }), text: "too many requests, please try later" },
    { name: "another status with a message", answer: (r) => r.fulfill({ status: 418, json: { code: "teapot", message: "the server is a teapot" } }), text: "the server is a teapot" },
    { name: "another status without a message", answer: (r) => r.fulfill({ status: 418, json: { code: "teapot" } }), text: "unknown error!" },
    { name: "another status with no body", answer: (r) => r.fulfill({ status: 502, body: "" }), text: "request timed out, server did not respond!" },
    { name: "no response at all", answer: (r) => r.abort("connectionreset"), text: "request timed out, server did not respond!" },
  ];

  for (const { name, answer, text } of cases) {
    test(`${name} shows '${text}'`, async ({ page }) => {
      await page.route(USER_INFO_ROUTE, answer);
      await page.goto("/");
      const toast = page.locator(".ant-message-notice").filter({ hasText: text });
      await expect(toast).toBeVisible();
      await expect(toast).toHaveText(text);
      await expect(page.locator(".ant-message")).toHaveCSS("z-index", "5000");
      // The session survives every error but 401.
      expect(await page.evaluate(() => localStorage.getItem("csrf-token"))).toBe(STORED_TOKEN);
    });
  }

  test("a toast lasts 3 seconds", async ({ page }) => {
    // A stopped clock that moves only when the test says.
    await page.clock.install({ time: new Date("2030-01-01T00:00:00Z") });
    await page.clock.pauseAt(new Date("2030-01-01T00:00:01Z"));
    await page.route(USER_INFO_ROUTE, (r) => r.fulfill({ status: 500, json: { code: "internal", message: "boom" } }));
    await page.goto("/");
    const toast = page.locator(".ant-message-notice").filter({ hasText: "server internal error" });
    await expect(toast).toBeVisible();
    await page.clock.runFor(2_900);
    await expect(toast).toBeVisible();
    await expect(toast).not.toHaveClass(/leave/);
    await page.clock.runFor(200);
    await expect(toast).toHaveClass(/leave/);
  });

  test("a toast is gone once its fade-out has run", async ({ page }) => {
    // On the real clock: under a fake one antd's fade-out never completes in this browser, though
    // its start (the 3 seconds above) does.
    await page.route(USER_INFO_ROUTE, (r) => r.fulfill({ status: 500, json: { code: "internal", message: "boom" } }));
    await page.goto("/");
    const toast = page.locator(".ant-message-notice").filter({ hasText: "server internal error" });
    await expect(toast).toBeVisible();
    await expect(toast).toBeHidden({ timeout: 15_000 });
  });
});

test.describe("401", () => {
  test.use({ storageState: signedInState() });

  test("clears the stored token and the cookie, and opens the login modal", async ({ page, context }) => {
    await page.route(USER_INFO_ROUTE, (r) => r.fulfill({ status: 401, json: { code: "unauthorized", message: "please log in first" } }));
    await page.goto("/");
    await expect(page.getByRole("dialog").getByText("verification code login")).toBeVisible();
    expect(await page.evaluate(() => localStorage.getItem("csrf-token"))).toBeNull();
    expect((await context.cookies()).filter((c) => c.name === "token")).toEqual([]);
    await expect(page.getByTestId("header-login")).toBeVisible();
    // SPEC.md §9: popups stack from z-index 1000.
    await expect(page.locator(".ant-modal-wrap")).toHaveCSS("z-index", "1000");
    await expect(page.locator(".ant-message-notice")).toHaveCount(0);
  });
});
