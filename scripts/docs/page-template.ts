/** The HTML shell of a docs page: the site's header and footer, the sidebar and the table of contents. No scripts. */
import { escapeHtml } from "../../src/shared/template";
import type { Heading } from "../markdown/render";

export interface NavLink {
  title: string;
  href: string;
}

export interface NavSection {
  title: string;
  links: NavLink[];
}

export interface DocsPageView {
  siteName: string;
  title: string;
  href: string;
  bodyHtml: string;
  headings: Heading[];
  nav: NavSection[];
  previous: NavLink | null;
  next: NavLink | null;
  cssHref: string;
  year: number;
}

function sidebar(nav: NavSection[], current: string): string {
  return nav
    .map(
      (section) =>
        `<div class="docs-nav-section"><p class="docs-nav-title">${escapeHtml(section.title)}</p><ul>${section.links
          .map(
            (link) =>
              `<li><a href="${escapeHtml(link.href)}"${link.href === current ? ' aria-current="page"' : ""}>${escapeHtml(link.title)}</a></li>`,
          )
          .join("")}</ul></div>`,
    )
    .join("");
}

function tableOfContents(headings: Heading[]): string {
  if (headings.length === 0) return "";
  const items = headings
    .map((h) => `<li class="toc-level-${h.level}"><a href="#${escapeHtml(h.id)}">${escapeHtml(h.text)}</a></li>`)
    .join("");
  return `<aside class="docs-toc" aria-labelledby="toc-title"><p class="docs-toc-title" id="toc-title">On this page</p><ul>${items}</ul></aside>`;
}

function pager(previous: NavLink | null, next: NavLink | null): string {
  if (!previous && !next) return "";
  const link = (l: NavLink | null, rel: string, label: string) =>
    l ? `<a class="docs-pager-${rel}" rel="${rel}" href="${escapeHtml(l.href)}"><span>${label}</span>${escapeHtml(l.title)}</a>` : "<span></span>";
  return `<nav class="docs-pager" aria-label="Previous and next page">${link(previous, "prev", "Previous")}${link(next, "next", "Next")}</nav>`;
}

export function renderDocsPage(view: DocsPageView): string {
  const site = escapeHtml(view.siteName);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(view.title)} — ${site} docs</title>
<meta name="description" content="${escapeHtml(`${view.title}: ${view.siteName} developer documentation`)}">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${escapeHtml(view.cssHref)}">
</head>
<body>
<div class="page docs-page" data-layout="docs">
<header class="site-header">
<a href="/" class="brand"><img class="brand-mark" src="/favicon.svg" alt="" width="28" height="28"><span class="brand-name">${site}</span></a>
<nav class="site-nav" aria-label="main"><a href="/docs.html" class="active">Docs</a><a href="/console/info">Console</a></nav>
<div class="site-header-end"><a class="button button-primary" href="/console/api-keys">Get an API key</a></div>
</header>
<div class="docs-shell">
<nav class="docs-sidebar" aria-label="Documentation">${sidebar(view.nav, view.href)}</nav>
${tableOfContents(view.headings)}
<main class="docs-main">
<article class="docs-content">
<h1>${escapeHtml(view.title)}</h1>
${view.bodyHtml}
</article>
${pager(view.previous, view.next)}
</main>
</div>
<footer class="site-footer">
<nav aria-label="legal"><a href="/protocol-serve">User Agreement</a><a href="/privacy">Privacy Agreement</a><a href="/service-level">Service Level Agreement</a><a href="/docs.html">Docs</a></nav>
<p>© ${view.year} ${site}</p>
</footer>
</div>
</body>
</html>
`;
}
