import { expect, test } from "@playwright/test";
import { USER_INFO_ROUTE, signIn, signedInState } from "./support/foundation";

/** SPEC.md §7: non-idempotent requests are retried once on 503 (with the same Idempotency-Key); GETs never. */
test.describe("the retry rule", () => {
  test("a POST answered 503 once is retried once with the same Idempotency-Key", async ({ page, request }) => {
    await signIn(page, request);
    const keys: (string | undefined)[] = [];
    await page.route("**/api/v1/auth/logout", async (route) => {
      keys.push(route.request().headers()["idempotency-key"]);
      if (keys.length === 1) await route.fulfill({ status: 503, json: { code: "unavailable", message: "try again" } });
      else await route.continue();
    });
    await page.goto("/console/info");
    await page.getByTestId("sign-out").click();
    await expect(page).toHaveURL("/");
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[A-Za-z0-9_-]{8,128}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(await page.evaluate(() => localStorage.getItem("csrf-token"))).toBeNull();
  });

  test.describe("with a stored token", () => {
    test.use({ storageState: signedInState() });

    test("a GET answered 503 is not retried", async ({ page }) => {
      await page.clock.install();
      let calls = 0;
      await page.route(USER_INFO_ROUTE, async (route) => {
        calls += 1;
        await route.fulfill({ status: 503, json: { code: "unavailable", message: "service unavailable" } });
      });
      await page.goto("/");
      await expect(page.locator(".ant-message-notice").filter({ hasText: "service unavailable" })).toBeVisible();
      // Any retry would be waiting on a timer: run them all.
      await page.clock.runFor(30_000);
      expect(calls).toBe(1);
    });
  });
});
