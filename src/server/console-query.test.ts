import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "./testing/test-app";
import { createUserWithSession, type TestUser } from "./testing/users";

let t: TestApp;
let user: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  user = await createUserWithSession(t);
});
afterAll(() => t.close());

/** The console's GET routes that take no query parameter, with what each answers when sent none. */
const TAKES_NO_PARAMETER: [path: string, status: number][] = [
  ["/api/v1/console/runway", 200],
  ["/api/v1/console/lots", 200],
  ["/api/v1/console/referrals", 200],
  ["/api/v1/tools/user-info", 200],
  ["/api/v1/console/keys", 200],
  ["/api/v1/console/applications", 200],
  ["/api/v1/console/alerts", 200],
  ["/api/v1/console/tries", 200],
  ["/api/v1/console/payment-methods", 200],
  ["/api/v1/console/payments/TG2026030108000012345678", 404],
  ["/api/v1/console/calls/01a22915-0000-7000-8000-000000000000", 404],
];

describe("console GET routes that take no query parameter", () => {
  it.each(TAKES_NO_PARAMETER)("%s refuses one by name, as the routes with parameters do, rather than answer as if it were heard", async (path, status) => {
    const typo = await t.app.inject({ url: `${path}?days=7`, headers: user.headers });
    expect([typo.statusCode, typo.json()]).toEqual([400, { code: "validation_failed", message: "the query string does not take the parameter days" }]);
    const two = await t.app.inject({ url: `${path}?from=2026-02-01T00:00:00Z&limit=5`, headers: user.headers });
    expect(two.json().message).toBe("the query string does not take the parameters from, limit");
    expect((await t.app.inject({ url: path, headers: user.headers })).statusCode).toBe(status);
  });

  it("still sends a renamed path on with its query, for the new path to judge", async () => {
    const old = await t.app.inject({ url: "/api/v1/console/charges?form=x", headers: user.headers });
    expect([old.statusCode, old.headers.location]).toEqual([308, "/api/v1/console/credits?form=x"]);
  });
});
