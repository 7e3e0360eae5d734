import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config";
import { createTestApp, type TestApp } from "./testing/test-app";
import { createWebFixture } from "./testing/web-fixture";

const secret = { SESSION_SECRET: "x".repeat(32) };

describe("the operator named by the legal pages", () => {
  it("defaults to the site name, a placeholder contact and the templates' date", () => {
    expect(loadConfig({ ...secret, SITE_NAME: "Acme APIs" })).toMatchObject({
      companyName: "Acme APIs",
      contactEmail: "support@example.com",
      legalEffectiveDate: "2026-11-22",
    });
  });

  it("reads COMPANY_NAME, CONTACT_EMAIL and LEGAL_EFFECTIVE_DATE", () => {
    const config = loadConfig({ ...secret, COMPANY_NAME: "Acme Ltd.", CONTACT_EMAIL: "legal@acme.test", LEGAL_EFFECTIVE_DATE: "2026-01-31" });
    expect(config).toMatchObject({ companyName: "Acme Ltd.", contactEmail: "legal@acme.test", legalEffectiveDate: "2026-01-31" });
  });

  it.each([
    ["CONTACT_EMAIL", "not-an-email", /CONTACT_EMAIL: must be an email address/],
    ["LEGAL_EFFECTIVE_DATE", "31/01/2026", /LEGAL_EFFECTIVE_DATE: must be a date such as 2026-01-31/],
    ["LEGAL_EFFECTIVE_DATE", "2026-02-30", /LEGAL_EFFECTIVE_DATE/],
  ])("refuses a bad %s with a message naming it", (name, value, message) => {
    expect(() => loadConfig({ ...secret, [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ ...secret, [name]: value })).toThrow(message);
  });
});

/** The settings a page carries to the browser in `<meta name="site-config">`. */
function siteSettingsOf(html: string): Record<string, unknown> {
  const content = /<meta name="site-config" content="([^"]*)">/.exec(html)?.[1] ?? "";
  return JSON.parse(content.replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&")) as Record<string, unknown>;
}

describe("the pages the server sends", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      WEB_ROOT: createWebFixture(),
      COMPANY_NAME: 'Acme & "Sons"',
      CONTACT_EMAIL: "legal@acme.test",
      LEGAL_EFFECTIVE_DATE: "2026-01-31",
      AUTH_CODE_RESEND_SECONDS: "45",
    });
  });
  afterAll(() => t.close());

  it("carry the operator's names to the client in the site settings", async () => {
    expect(siteSettingsOf((await t.app.inject({ url: "/privacy" })).body)).toMatchObject({ companyName: 'Acme & "Sons"', contactEmail: "legal@acme.test", legalEffectiveDate: "2026-01-31" });
  });

  it("tell the browser the currency and how long the login form waits before another code", async () => {
    expect(siteSettingsOf((await t.app.inject({ url: "/" })).body)).toMatchObject({ currencySymbol: "¥", codeResendSeconds: 45 });
  });
});
