/**
 * The pages that show the operator's catalog or the site's address, made once at start-up from
 * what this server loaded (decision 056): the landing page's cards and the docs. A change to
 * TOOLS_CATALOG or PUBLIC_URL takes effect at the next restart, with no rebuild. Everything a page
 * shows of the catalog is rendered here, so a new field of a card or a tool page is added in one place.
 */
import fs from "node:fs";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { publicTool } from "../catalog";
import { DOCS_TEMPLATES_FILE, docsTool, renderDocs, type DocsTemplates, type DocsTool } from "./docs";
import { withCatalog } from "./landing";

export const LANDING_PAGE = "/index.html";

/** The site's tools as the pages show them, in the catalog's order. */
function docsTools(app: FastifyInstance): DocsTool[] {
  return [...app.catalog.values()].map((tool) => docsTool(publicTool(tool), tool.handler));
}

/**
 * `read` gives a built page's HTML by its address (null when the build has none). Returns the
 * pages to serve by address: the landing page with its cards, and every docs page.
 */
export function renderSitePages(app: FastifyInstance, webRoot: string, read: (file: string) => string | null): Map<string, string> {
  const pages = new Map<string, string>();
  const tools = docsTools(app);
  const landing = read(LANDING_PAGE);
  if (landing !== null) pages.set(LANDING_PAGE, withCatalog(landing, tools));
  const templatesFile = path.join(webRoot, "..", DOCS_TEMPLATES_FILE);
  if (fs.existsSync(templatesFile)) {
    const templates = JSON.parse(fs.readFileSync(templatesFile, "utf8")) as DocsTemplates;
    const docs = renderDocs(templates, { tools, siteName: app.config.siteName, publicUrl: app.config.publicUrl, year: new Date().getFullYear() });
    for (const [href, html] of docs) pages.set(href, html);
  }
  return pages;
}
