import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "./testing/test-app";
import { FIXTURE_INLINE_SCRIPT, createWebFixture } from "./testing/web-fixture";

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ WEB_ROOT: createWebFixture(), SITE_NAME: "Acme APIs", COOKIE_DOMAIN: ".acme.test" });
});
afterAll(() => t.close());

describe("health", () => {
  it("reports the database reachable", async () => {
    const res = await t.app.inject({ method: "GET", url: "/api/v1/health" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: "ok", database: { reachable: true, kind: process.env.DATABASE_URL ? "postgres" : "pglite" } });
    expect(res.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("routing", () => {
  it.each([
    ["/docs/a", "/docs/a.html"],
    ["/docs/a/?x=1", "/docs/a.html?x=1"],
    ["/docs", "/docs.html"],
    ["/docs/", "/docs.html"],
    ["/docs/guide/keys", "/docs/guide/keys.html"],
  ])("redirects %s to %s with 301", async (from, to) => {
    const res = await t.app.inject({ method: "GET", url: from });
    expect(res.statusCode).toBe(301);
    expect(res.headers.location).toBe(to);
  });

  it("leaves docs pages that end in .html alone", async () => {
    const res = await t.app.inject({ method: "GET", url: "/docs/a.html" });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain("doc a");
  });

  it.each([
    ["/docs/%E4%B8%AD%E6%96%87", "/docs/%E4%B8%AD%E6%96%87.html"],
    ["/docs/%C3%A9", "/docs/%C3%A9.html"],
    ["/docs/a%20b", "/docs/a%20b.html"],
    ["/docs/a%3Fb", "/docs/a%3Fb.html"],
  ])("redirects %s to the percent-encoded %s (issue 23 §15)", async (from, to) => {
    const res = await t.app.inject({ method: "GET", url: from });
    expect(res.statusCode).toBe(301);
    expect(res.headers.location).toBe(to);
  });

  it.each(["/docs/%0d%0aSet-Cookie:%20pwned=1", "/docs/%00", "/docs/a%1b[2J"])("answers %s, which cannot be a docs page, with the 404 page", async (url) => {
    const res = await t.app.inject({ method: "GET", url });
    expect(res.statusCode).toBe(404);
    expect(res.headers["set-cookie"]).toBeUndefined();
    expect(res.headers.location).toBeUndefined();
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
  });

  it("does not treat /docsx as docs", async () => {
    const res = await t.app.inject({ method: "GET", url: "/docsx" });
    expect(res.statusCode).toBe(404);
  });

  it("redirects /console to /console/info with 302, keeping the query", async () => {
    const res = await t.app.inject({ method: "GET", url: "/console?r=abc" });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe("/console/info?r=abc");
  });

  it("serves prerendered pages and the SPA page for console routes", async () => {
    expect((await t.app.inject({ url: "/" })).body).toContain("<div>home</div>");
    expect((await t.app.inject({ url: "/privacy" })).body).toContain("<div>privacy</div>");
    expect((await t.app.inject({ url: "/privacy/" })).body).toContain("<div>privacy</div>");
    const console = await t.app.inject({ url: "/console/api-keys" });
    expect(console.statusCode).toBe(200);
    expect(console.body).toContain("<div>spa</div>");
  });

  it("answers an unknown page with status 404 and the app's 404 page", async () => {
    const res = await t.app.inject({ url: "/no/such/page" });
    expect(res.statusCode).toBe(404);
    expect(res.headers["content-type"]).toMatch(/text\/html/);
    expect(res.body).toContain("<div>spa</div>");
  });

  it("answers a missing asset with a plain 404, never the HTML page", async () => {
    const res = await t.app.inject({ url: "/assets/gone-123.js" });
    expect(res.statusCode).toBe(404);
    expect(res.headers["content-type"]).toMatch(/text\/plain/);
    expect(res.body).not.toContain("<html");
  });

  it("answers an unknown API path with JSON 404", async () => {
    const res = await t.app.inject({ url: "/api/v1/nope" });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ code: "not_found", message: "server resource does not exist" });
  });
});

describe("headers", () => {
  it("caches hashed assets for a year and HTML not at all", async () => {
    const asset = await t.app.inject({ url: "/assets/app-abc123.js" });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    const html = await t.app.inject({ url: "/" });
    expect(html.headers["cache-control"]).toBe("no-cache");
    const build = await t.app.inject({ url: "/builds/latest.json" });
    expect(build.headers["cache-control"]).toBe("no-cache");
  });

  it("sends a CSP that allows only this page's own inline scripts, by hash", async () => {
    const res = await t.app.inject({ url: "/" });
    const csp = String(res.headers["content-security-policy"]);
    const hash = createHash("sha256").update(FIXTURE_INLINE_SCRIPT).digest("base64");
    expect(csp).toContain(`script-src 'self' 'sha256-${hash}'`);
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
  });

  it("sets the usual security headers on API responses too", async () => {
    const res = await t.app.inject({ url: "/api/v1/health" });
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.headers["referrer-policy"]).toBe("no-referrer");
    expect(res.headers["content-security-policy"]).toContain("default-src 'self'");
  });

  it("writes the runtime site settings into each page", async () => {
    const res = await t.app.inject({ url: "/" });
    expect(res.body).toContain('<meta name="site-config" content="{&quot;siteName&quot;:&quot;Acme APIs&quot;');
    expect(res.body).toContain("&quot;cookieDomain&quot;:&quot;.acme.test&quot;");
  });
});

describe("errors", () => {
  it("answers a request without a session with 401 JSON", async () => {
    const res = await t.app.inject({ url: "/api/v1/tools/user-info" });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ code: "unauthorized", message: "please log in first" });
  });

  it("answers a bearer token that matches no session with 401", async () => {
    const res = await t.app.inject({ url: "/api/v1/tools/user-info", headers: { authorization: "Bearer nope" } });
    expect(res.statusCode).toBe(401);
  });
});

describe("CSP with a third-party captcha", () => {
  it("lets the pages load the configured captcha's script, frames and API, and nothing else", async () => {
    const tencent = await createTestApp(
      {
        WEB_ROOT: createWebFixture(),
        CAPTCHA_PROVIDER: "tencent",
        TENCENT_SECRET_ID: "id",
        TENCENT_SECRET_KEY: "key",
        TENCENT_CAPTCHA_APP_ID: "190000000",
        TENCENT_CAPTCHA_APP_SECRET_KEY: "secret",
      },
      { database: t.database },
    );
    try {
      const csp = String((await tencent.app.inject({ url: "/" })).headers["content-security-policy"]);
      expect(csp).toMatch(/script-src 'self' 'sha256-[^']+' https:\/\/turing\.captcha\.qcloud\.com https:\/\/\*\.captcha\.qcloud\.com;/);
      expect(csp).toContain("frame-src https://turing.captcha.qcloud.com https://*.captcha.qcloud.com");
      expect(csp).toContain("connect-src 'self' https://*.captcha.qcloud.com");
    } finally {
      await tencent.close();
    }
    const own = String((await t.app.inject({ url: "/" })).headers["content-security-policy"]);
    expect(own).not.toContain("qcloud");
    expect(own).not.toContain("frame-src");
  });
});
