import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { FastifyInstance, FastifyReply } from "fastify";
import fp from "fastify-plugin";
import fastifyStatic from "@fastify/static";
import { CURRENCY_SYMBOL, type SiteConfig } from "#shared/site-config";
import { CONSOLE_HOME, SPA_PATHS, docsRedirectTarget } from "#shared/site-routes";
import type { AppConfig } from "../config";
import { captchaCspSources } from "../providers/captcha/csp";
import { unsafeTextProblem } from "#shared/text";
import { contentSecurityPolicy } from "./security";

const SPA_FALLBACK = "/__spa-fallback.html";
const IMMUTABLE = "public, max-age=31536000, immutable";
const NO_CACHE = "no-cache";

/** A page split where each response's nonce goes, with the script hashes its CSP names. */
interface HtmlPage {
  chunks: string[];
  scriptHashes: string[];
}

/** Where the nonce goes in a page; random per process, so no page text can collide with it. */
const NONCE_SLOT = `__csp_nonce_${randomBytes(8).toString("hex")}__`;

/**
 * Gives every inline <style> the response's nonce, and the page a `<meta property="csp-nonce">`
 * (Vite's convention) from which the client passes it to antd. Browsers hide a nonce attribute
 * from the DOM once parsed; scripts read it from the element's `nonce` property.
 */
export function withNonceSlots(html: string, slot: string): string {
  return html
    .replace(/<style(?![^>]*\bnonce=)/gi, `<style nonce="${slot}"`)
    .replace(/<head>/i, `<head><meta property="csp-nonce" nonce="${slot}">`);
}

const END_OF_DOCUMENT = "end-of-document";

/**
 * Holds the first paint until the whole document is parsed. Under load Chromium paints a page
 * whose parser has yielded part-way, and the rest arriving then moves what was painted (the
 * header's end grows as its select and button are parsed): a layout shift the user sees. The
 * render-blocking `expect` link is released by an empty element the body ends with (with none,
 * parsing's end releases it too, and Chromium warns in the console of every page).
 */
export function paintedWhenParsed(html: string): string {
  return html
    .replace(/<head>/i, `<head><link rel="expect" href="#${END_OF_DOCUMENT}" blocking="render">`)
    .replace(/<\/body>(?![\s\S]*<\/body>)/i, `<div id="${END_OF_DOCUMENT}" hidden></div></body>`);
}

/**
 * Every inline <script> needs its hash in the CSP: scripts are allowed by hash, styles by the nonce
 * of each response. A JSON data block (the landing page's catalog) is never run, so it needs none.
 */
export function inlineScriptHashes(html: string): string[] {
  const hashes: string[] = [];
  for (const match of html.matchAll(/<script(?![^>]*\bsrc=)(?![^>]*\btype="application\/json")[^>]*>([\s\S]*?)<\/script>/gi)) {
    const content = match[1] ?? "";
    if (content.trim() === "") continue;
    hashes.push(`sha256-${createHash("sha256").update(content, "utf8").digest("base64")}`);
  }
  return hashes;
}

function listFiles(root: string, dir = root, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) listFiles(root, full, out);
    else if (entry.isFile()) out.push("/" + path.relative(root, full).split(path.sep).join("/"));
  }
  return out;
}

/** Maps `/privacy` and `/privacy/` to `/privacy/index.html`, and `/` to `/index.html`. */
function htmlKeyFor(pathname: string): string {
  if (pathname.endsWith(".html")) return pathname;
  return `${pathname.replace(/\/+$/, "")}/index.html`;
}

/** A decoded path, percent-encoded again segment by segment: what a Location header may carry. */
function encodePath(pathname: string): string {
  return pathname.split("/").map(encodeURIComponent).join("/");
}

function cacheControlFor(file: string): string {
  if (file.startsWith("/assets/")) return IMMUTABLE;
  return NO_CACHE;
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** What the browser is told of this server's settings. */
export function siteConfigFor(config: AppConfig): SiteConfig {
  return {
    siteName: config.siteName,
    companyName: config.companyName,
    contactEmail: config.contactEmail,
    legalEffectiveDate: config.legalEffectiveDate,
    cookieDomain: config.cookieDomain ?? null,
    currencySymbol: CURRENCY_SYMBOL,
    buildPollSeconds: config.buildPollSeconds,
    apiBase: "",
    publicUrl: config.publicUrl,
    codeResendSeconds: config.auth.limits.resendSeconds,
  };
}

/** Runtime settings for the client (see src/web/lib/site-config.ts), written into each page's head. */
function withSiteConfig(html: string, siteConfig: SiteConfig): string {
  const tag = `<meta name="site-config" content="${escapeAttribute(JSON.stringify(siteConfig))}">`;
  return html.replace(/<head>/i, `<head>${tag}`);
}

/**
 * Serves the built web app: hashed assets with long caching, HTML from memory with its CSP,
 * SPEC.md §2's redirects, the SPA fallback for client routes, and a real 404 status for the rest.
 * Paths under /api and /v1 are their route families' (app.ts), which answer GET and HEAD there too.
 */
export default fp(
  async function webPlugin(
    app: FastifyInstance,
    opts: {
      webRoot: string;
      /** The pages made at start-up (modules/site-pages), by address, from the built pages `read` gives by address. */
      renderPages: (read: (file: string) => string | null) => Map<string, string>;
    },
  ) {
    const root = opts.webRoot;
    const available = fs.existsSync(root);
    const files = new Set(available ? listFiles(root) : []);
    const pages = new Map<string, HtmlPage>();
    const siteConfig = siteConfigFor(app.config);
    const built = (file: string) => (files.has(file) ? fs.readFileSync(path.join(root, file), "utf8") : null);
    const rendered = available ? opts.renderPages(built) : new Map<string, string>();
    for (const file of new Set([...files, ...rendered.keys()])) {
      if (!file.endsWith(".html")) continue;
      const html = withSiteConfig(rendered.get(file) ?? built(file)!, siteConfig);
      pages.set(file, { chunks: withNonceSlots(paintedWhenParsed(html), NONCE_SLOT).split(NONCE_SLOT), scriptHashes: inlineScriptHashes(html) });
    }
    const captchaSources = captchaCspSources(app.config.auth.captcha);
    if (!available) app.log.warn({ root }, "web build not found: run `npm run build` to serve the app");

    await app.register(fastifyStatic, { root: available ? root : process.cwd(), serve: false, preCompressed: true, cacheControl: false });

    const sendPage = (reply: FastifyReply, page: HtmlPage, status = 200) => {
      const nonce = randomBytes(16).toString("base64");
      return reply
        .code(status)
        .header("content-security-policy", contentSecurityPolicy(page.scriptHashes, captchaSources, nonce))
        .header("cache-control", NO_CACHE)
        .type("text/html; charset=utf-8")
        .send(page.chunks.join(nonce));
    };

    const notFound = (reply: FastifyReply, pathname: string) => {
      const fallback = pages.get(SPA_FALLBACK);
      // A stale tab asking for an old chunk must get a 404 it can act on, never HTML to parse as JavaScript.
      if (pathname.startsWith("/assets/") || pathname.startsWith("/builds/")) {
        return reply.code(404).header("cache-control", NO_CACHE).type("text/plain; charset=utf-8").send("Not found");
      }
      if (fallback) return sendPage(reply, fallback, 404);
      return reply.code(404).type("text/plain; charset=utf-8").send("Not found");
    };

    app.route({
      method: ["GET", "HEAD"],
      url: "/*",
      handler: async (request, reply) => {
        const url = new URL(request.url, "http://local");
        let pathname: string;
        try {
          pathname = decodeURIComponent(url.pathname);
        } catch {
          return notFound(reply, url.pathname);
        }
        const docsTarget = docsRedirectTarget(pathname);
        if (docsTarget) {
          // A control character can be in no page name; anything else goes out percent-encoded.
          if (unsafeTextProblem(pathname)) return notFound(reply, pathname);
          return reply.redirect(encodePath(docsTarget) + url.search, 301);
        }
        if (pathname === "/console" || pathname === "/console/") return reply.redirect(CONSOLE_HOME + url.search, 302);

        const page = pages.get(htmlKeyFor(pathname));
        if (page) return sendPage(reply, page);
        if (files.has(pathname) && !pathname.endsWith(".html")) {
          return reply.header("cache-control", cacheControlFor(pathname)).sendFile(pathname.slice(1));
        }
        const spaPath = pathname.length > 1 ? pathname.replace(/\/+$/, "") : pathname;
        const fallback = pages.get(SPA_FALLBACK);
        if (SPA_PATHS.has(spaPath) && fallback) return sendPage(reply, fallback);
        return notFound(reply, pathname);
      },
    });
  },
  { name: "web", dependencies: ["config", "security"] },
);
