import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../testing/test-app";
import { createWebFixture } from "../testing/web-fixture";

/* Every answer carries the same security headers (helmet's defaults without its CSP, and the site's own CSP) and a request id, whichever family or error answers it. */

const HELMET_HEADERS = {
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  "origin-agent-cluster": "?1",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "x-dns-prefetch-control": "off",
  "x-download-options": "noopen",
  "x-frame-options": "SAMEORIGIN",
  "x-permitted-cross-domain-policies": "none",
  "x-xss-protection": "0",
};
/** A UUIDv7: the request's time first (src/server/lib/request-id.ts). */
const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const HSTS = "max-age=31536000; includeSubDomains";
const SITE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

const REQUESTS = [
  { what: "an API answer", method: "GET", url: "/api/v1/health", status: 200 },
  { what: "an API refusal", method: "GET", url: "/api/v1/tools/user-info", status: 401 },
  { what: "an error thrown in a route", method: "GET", url: "/api/v1/boom", status: 500 },
  { what: "the unmetered echo", method: "POST", url: "/v1/echo", status: 200, payload: '{"a":1}' },
  { what: "a gateway refusal", method: "POST", url: "/v1/tools/echo", status: 401, payload: '{"a":1}' },
  { what: "a gateway 404", method: "POST", url: "/v1/nope", status: 404 },
  { what: "a site 404", method: "POST", url: "/somewhere", status: 404 },
] as const;

describe.each([
  { publicUrl: "http://localhost:3000", hsts: false },
  { publicUrl: "https://gateway.example", hsts: true },
])("security headers, PUBLIC_URL $publicUrl", ({ publicUrl, hsts }) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ PUBLIC_URL: publicUrl, UNMETERED_ECHO: "true", WEB_ROOT: createWebFixture() }, { extraApiRoutes: [async (api) => void api.get("/boom", () => Promise.reject(new Error("boom")))] });
  });
  afterAll(() => t.close());

  it.each(REQUESTS)("are on $what", async ({ method, url, status, ...rest }) => {
    const res = await t.app.inject({ method, url, ...("payload" in rest ? { payload: rest.payload, headers: { "content-type": "application/json" } } : {}) });
    expect(res.statusCode).toBe(status);
    for (const [name, value] of Object.entries(HELMET_HEADERS)) expect(res.headers[name], name).toBe(value);
    expect(res.headers["strict-transport-security"]).toBe(hsts ? HSTS : undefined);
    expect(res.headers["content-security-policy"]).toBe(SITE_CSP);
    expect(res.headers["x-request-id"]).toMatch(REQUEST_ID);
  });

  it("are on a page, whose CSP is its own", async () => {
    const res = await t.app.inject({ url: "/" });
    expect(res.statusCode).toBe(200);
    for (const [name, value] of Object.entries(HELMET_HEADERS)) expect(res.headers[name], name).toBe(value);
    expect(res.headers["strict-transport-security"]).toBe(hsts ? HSTS : undefined);
    expect(res.headers["content-security-policy"]).toMatch(/^default-src 'self'; script-src 'self' 'sha256-/);
    expect(res.headers["x-request-id"]).toMatch(REQUEST_ID);
  });

  it("leave the echo's body and content type as they were", async () => {
    const res = await t.app.inject({ method: "POST", url: "/v1/echo", headers: { "content-type": "text/plain; charset=utf-8" }, payload: "héllo" });
    expect(res.body).toBe("héllo");
    expect(res.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(res.headers["content-length"]).toBe(String(Buffer.byteLength("héllo")));
  });
});
