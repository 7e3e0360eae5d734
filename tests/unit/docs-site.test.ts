/**
 * The built site (run `npm run build` first; BUILD_DIR picks the build): every docs page is served,
 * SPEC.md's /docs redirect lands on real pages, and every internal link of the docs and the legal
 * pages resolves, served by the real server.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DOCS_LANGUAGES, GUIDE_SECTIONS, docsHref } from "../../scripts/docs/build-docs";
import { LANGUAGE_SCRIPT } from "../../src/server/modules/site-pages/docs-frame";
import { apiOperations, missingTranslations } from "../../scripts/docs/api-reference";
import { checkLinks, idsOf } from "../../scripts/docs/link-check";
import { snapshotServer, type ServerSnapshot } from "../../scripts/docs/server-snapshot";
import { DOCS_TEMPLATES_FILE, toolSlug } from "../../src/server/modules/site-pages/docs";
import { withoutBreakHints } from "../../src/server/testing/break-hints";
import { createTestApp, type TestApp } from "../../src/server/testing/test-app";
import { API_ERRORS } from "../../src/shared/errors";
import { toolText } from "../../src/shared/tool-text";
import { GATEWAY_ERRORS } from "../../src/shared/gateway";

const clientDir = path.resolve(process.env.BUILD_DIR ?? "build", "client");
const LEGAL_PAGES = ["/privacy", "/protocol-serve", "/service-level"];

let t: TestApp;
let snapshot: ServerSnapshot;
let expectedPages: string[];

beforeAll(async () => {
  if (!fs.existsSync(path.join(clientDir, "..", DOCS_TEMPLATES_FILE))) {
    throw new Error(`no docs in ${clientDir}: run \`npm run build\` (with the same BUILD_DIR) before this test`);
  }
  t = await createTestApp({ WEB_ROOT: clientDir });
  snapshot = await snapshotServer(process.env, { database: t.database });
  const slugs = [...GUIDE_SECTIONS.flatMap((s) => s.slugs), "tools", ...snapshot.tools.map(toolSlug), "api"];
  expectedPages = DOCS_LANGUAGES.flatMap((language) => slugs.map((slug) => docsHref(slug, language)));
});
afterAll(() => t?.close());

const get = (url: string) => t.app.inject({ method: "GET", url });

describe("the docs build", () => {
  it("serves every page in English and Chinese: the guides, one page per catalog tool, and the API reference", async () => {
    expect(snapshot.tools.length).toBeGreaterThan(0);
    expect(expectedPages).toContain("/docs/zh-CN/quickstart.html");
    for (const page of expectedPages) expect((await get(page)).statusCode, page).toBe(200);
  });

  it("serves each page with the site's header and footer, a sidebar, a table of contents and its language, and no JavaScript but the language switch", async () => {
    const scriptHash = createHash("sha256").update(LANGUAGE_SCRIPT).digest("base64");
    for (const page of expectedPages) {
      const res = await get(page);
      const language = page.startsWith("/docs/zh-CN") ? "zh-CN" : "en";
      const other = language === "en" ? "zh-CN" : "en";
      const twin = language === "en" ? page.replace(/^\/docs(?=[./])/, "/docs/zh-CN") : page.replace("/docs/zh-CN", "/docs");
      expect(res.body, page).toContain(`<html lang="${language}">`);
      expect(res.body, page).toContain(`<link rel="alternate" hreflang="${other}" href="${twin}">`);
      expect(res.body, page).toContain(`<a href="${twin}" hreflang="${other}" lang="${other}">`);
      expect([...res.body.matchAll(/<script[^>]*>([\s\S]*?)<\/script>/gi)].map((m) => m[1]), page).toEqual([LANGUAGE_SCRIPT]);
      expect(String(res.headers["content-security-policy"])).toContain(`'sha256-${scriptHash}'`);
      // The CSP's style-src takes the style sheets only: a style attribute would be refused (an aligned table column was).
      expect(res.body, page).not.toMatch(/<[^>]+\sstyle=/);
      expect(res.statusCode, page).toBe(200);
      expect(res.headers["content-type"]).toMatch(/^text\/html/);
      expect(res.body).toContain('<header class="site-header">');
      expect(res.body).toContain('<footer class="site-footer">');
      expect(res.body).toContain(`aria-current="page"`);
      expect(res.body).toContain('<nav class="docs-sidebar"');
      expect(String(res.headers["content-security-policy"])).toContain("script-src 'self'");
    }
    expect((await get("/docs/quickstart.html")).body).toContain('<aside class="docs-toc"');
  });

  it("highlights code at build time", async () => {
    const body = (await get("/docs/quickstart.html")).body;
    // Colours are classes (a style sheet the CSP allows), never style attributes (decision 019).
    expect(body).toMatch(/<pre class="shiki github-light[^"]*"[^>]*><code><span class="line"><span class="hl-\d+">curl/);
    expect(body).not.toMatch(/<span style=/);
  });

  it("shows each tool's price, access and call from the catalog, in each language", async () => {
    for (const tool of snapshot.tools) {
      const zh = toolText(tool, "zh-CN");
      for (const [language, name, price] of [
        ["en", tool.name, `¥${tool.price} per ${tool.unit ?? "call"}`],
        ["zh-CN", zh.name, `¥${tool.price}/${zh.unit ?? "次"}`],
      ] as const) {
        const body = withoutBreakHints((await get(docsHref(toolSlug(tool), language))).body);
        expect(body).toContain(`<h1>${name}</h1>`);
        expect(body).toContain(price);
        expect(body).toContain(`${tool.method} ${t.app.config.publicUrl}/v1/tools/${tool.id}`);
        if (tool.requiresApproval) expect(body).toContain('href="/console/apply"');
      }
    }
  });

  it("documents every route of the server's OpenAPI document in the API reference, in each language", async () => {
    const operations = [...apiOperations(snapshot.openapi).values()].flat();
    expect(operations.length).toBeGreaterThan(3);
    for (const language of DOCS_LANGUAGES) {
      const body = (await get(docsHref("api", language))).body;
      for (const { method, path: route } of operations) expect(body, route).toContain(`<code>${method.toUpperCase()} ${route}</code>`);
    }
  });

  it("gives the Chinese API reference every endpoint's summary in Chinese, under the English page's ids", async () => {
    expect(missingTranslations(snapshot.openapi)).toEqual([]);
    const ids = (body: string) => [...body.matchAll(/<h[23] id="([^"]+)"/g)].map((m) => m[1]);
    const [en, zh] = await Promise.all([get(docsHref("api", "en")), get(docsHref("api", "zh-CN"))]);
    expect(ids(zh.body)).toEqual(ids(en.body));
    expect(zh.body).toContain("当前登录的用户及其余额");
  });

  it("documents every error code of the console API and of the gateway, in each language", async () => {
    for (const language of DOCS_LANGUAGES) {
      const body = withoutBreakHints((await get(docsHref("errors", language))).body);
      for (const [code, { status }] of Object.entries(API_ERRORS)) expect(body, code).toContain(`<td><code>${code}</code></td>\n<td>${status}</td>`);
      for (const [code, { status }] of Object.entries(GATEWAY_ERRORS)) {
        expect(body, code).toContain(`<td><code>${status}</code></td>\n<td><code>${code}</code></td>`);
      }
    }
  });
});

describe("the /docs redirect rule (SPEC.md §2)", () => {
  it("lands every docs address without .html on the real page", async () => {
    for (const page of expectedPages) {
      const bare = page.replace(/\.html$/, "");
      const redirect = await get(`${bare}?from=test`);
      expect(redirect.statusCode, bare).toBe(301);
      expect(redirect.headers.location).toBe(`${page}?from=test`);
      const landed = await get(String(redirect.headers.location));
      expect(landed.statusCode).toBe(200);
      expect(landed.body).toContain('data-layout="docs"');
    }
  });

  it("lands a page's address typed with a slash after it on the page, not on a .html.html that does not exist", async () => {
    for (const page of ["/docs/quickstart.html", "/docs/zh-CN/tools/echo.html"]) {
      const res = await get(`${page}/?from=test`);
      expect(res.statusCode, page).toBe(301);
      expect(res.headers.location).toBe(`${page}?from=test`);
      expect((await get(page)).statusCode).toBe(200);
    }
  });

  it("lands /docs and /docs/ on the start page, and /docs/zh-CN and /docs/zh-CN/ on the Chinese one", async () => {
    for (const from of ["/docs", "/docs/"]) {
      const res = await get(from);
      expect(res.headers.location).toBe("/docs.html");
      expect((await get("/docs.html")).body).toContain("documentation</h1>");
    }
    for (const from of ["/docs/zh-CN", "/docs/zh-CN/"]) {
      const res = await get(from);
      expect(res.headers.location).toBe("/docs/zh-CN.html");
      expect((await get("/docs/zh-CN.html")).body).toContain("文档</h1>");
    }
  });
});

describe("links", () => {
  it("every internal link of the docs and the legal pages resolves, anchors included", async () => {
    const { broken, checked } = await checkLinks(
      async (url) => {
        const res = await get(url);
        return {
          status: res.statusCode,
          location: res.headers.location ? String(res.headers.location) : undefined,
          contentType: String(res.headers["content-type"] ?? ""),
          body: res.body,
        };
      },
      ["/docs.html", "/docs/zh-CN.html", ...LEGAL_PAGES],
      ["/docs", ...LEGAL_PAGES],
    );
    expect(broken).toEqual([]);
    for (const page of [...expectedPages, ...LEGAL_PAGES, "/console/apply", "/"]) expect(checked).toContain(page);
  });

  it("the legal pages are prerendered with their whole text and working anchors", async () => {
    for (const page of LEGAL_PAGES) {
      const body = (await get(page)).body;
      expect(body).toContain('data-layout="protocol"');
      const contents = [...body.matchAll(/<nav class="legal-contents"[\s\S]*?<\/nav>/g)][0]?.[0] ?? "";
      const anchors = [...contents.matchAll(/href="#([^"]+)"/g)].map((m) => m[1]!);
      expect(anchors.length, page).toBeGreaterThan(4);
      const ids = idsOf(body);
      for (const anchor of anchors) expect(ids).toContain(anchor);
    }
  });
});
