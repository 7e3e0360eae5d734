/** The HTML shell of a docs page: the site's header and footer, the sidebar and the table of contents. No scripts. */
import { escapeHtml } from "#shared/template";
import type { DocsLanguage, DocsStrings } from "./docs-languages";

/** A heading of a page's body, for its table of contents. */
export interface Heading {
  level: number;
  id: string;
  text: string;
}

export interface NavLink {
  title: string;
  href: string;
}

export interface NavSection {
  title: string;
  links: NavLink[];
}

/** The same page in another language. */
export interface AlternatePage {
  language: DocsLanguage;
  name: string;
  href: string;
}

/**
 * Sends the reader to the page in the language chosen on the site (`lang` in localStorage, as
 * src/web/i18n keeps it; a click on a docs language link is such a choice too). Without a choice,
 * an English address (the docs' default one) follows the browser's language as the site does,
 * while a zh-CN address, which only a link in Chinese leads to, stays. The URL's language stands
 * when scripts or storage are off. Inline, so the CSP names its hash; one text on every page.
 */
export const LANGUAGE_SCRIPT =
  '(function(){var d=document,h=d.documentElement.lang,l;try{l=localStorage.getItem("lang")}catch(e){}' +
  'if(l!=="en"&&l!=="zh-CN"&&h==="en"){var n=(navigator.languages&&navigator.languages[0])||navigator.language||"en";l=n.toLowerCase().indexOf("zh")===0?"zh-CN":"en"}' +
  'var a=d.querySelector(\'link[rel="alternate"][hreflang="\'+l+\'"]\');' +
  'if(a&&l!==h){location.replace(a.getAttribute("href")+location.search+location.hash);return}' +
  'd.addEventListener("click",function(e){var t=e.target&&e.target.closest&&e.target.closest("a[hreflang]");' +
  'if(t)try{localStorage.setItem("lang",t.getAttribute("hreflang"))}catch(x){}})})()';

export interface DocsPageView {
  language: DocsLanguage;
  words: DocsStrings;
  alternates: AlternatePage[];
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

function tableOfContents(headings: Heading[], words: DocsStrings): string {
  if (headings.length === 0) return "";
  const items = headings
    .map((h) => `<li class="toc-level-${h.level}"><a href="#${escapeHtml(h.id)}">${escapeHtml(h.text)}</a></li>`)
    .join("");
  return `<aside class="docs-toc" aria-labelledby="toc-title"><p class="docs-toc-title" id="toc-title">${escapeHtml(words.onThisPage)}</p><ul>${items}</ul></aside>`;
}

function pager(previous: NavLink | null, next: NavLink | null, words: DocsStrings): string {
  if (!previous && !next) return "";
  const link = (l: NavLink | null, rel: string, label: string) =>
    l ? `<a class="docs-pager-${rel}" rel="${rel}" href="${escapeHtml(l.href)}"><span>${label}</span>${escapeHtml(l.title)}</a>` : "<span></span>";
  return `<nav class="docs-pager" aria-label="${escapeHtml(words.pager)}">${link(previous, "prev", escapeHtml(words.previous))}${link(next, "next", escapeHtml(words.next))}</nav>`;
}

function languageLinks(alternates: AlternatePage[], words: DocsStrings): string {
  const links = alternates
    .map((a) => `<a href="${escapeHtml(a.href)}" hreflang="${a.language}" lang="${a.language}">${escapeHtml(a.name)}</a>`)
    .join("");
  return `<nav class="docs-languages" aria-label="${escapeHtml(words.otherLanguage)}">${links}</nav>`;
}

export function renderDocsPage(view: DocsPageView): string {
  const site = escapeHtml(view.siteName);
  const words = view.words;
  const home = view.language === "en" ? "/docs.html" : `/docs/${view.language}.html`;
  const alternateLinks = view.alternates
    .map((a) => `<link rel="alternate" hreflang="${a.language}" href="${escapeHtml(a.href)}">`)
    .join("\n");
  return `<!DOCTYPE html>
<html lang="${view.language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(words.docsTitle(view.title, view.siteName))}</title>
<meta name="description" content="${escapeHtml(words.description(view.title, view.siteName))}">
${alternateLinks}
<script>${LANGUAGE_SCRIPT}</script>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${escapeHtml(view.cssHref)}">
</head>
<body>
<div class="page docs-page" data-layout="docs">
<header class="site-header">
<a href="/" class="brand"><img class="brand-mark" src="/favicon.svg" alt="" width="28" height="28"><span class="brand-name">${site}</span></a>
<nav class="site-nav" aria-label="main"><a href="${home}" class="active">${escapeHtml(words.docs)}</a><a href="/console/info">${escapeHtml(words.console)}</a></nav>
<div class="site-header-end">${languageLinks(view.alternates, words)}<a class="button button-primary" href="/console/api-keys">${escapeHtml(words.getKey)}</a></div>
</header>
<div class="docs-shell">
<nav class="docs-sidebar" aria-label="${escapeHtml(words.documentation)}">${sidebar(view.nav, view.href)}</nav>
${tableOfContents(view.headings, words)}
<main class="docs-main">
<article class="docs-content">
<h1>${escapeHtml(view.title)}</h1>
${view.bodyHtml}
</article>
${pager(view.previous, view.next, words)}
</main>
</div>
<footer class="site-footer">
<nav aria-label="legal"><a href="/protocol-serve">${escapeHtml(words.userAgreement)}</a><a href="/privacy">${escapeHtml(words.privacy)}</a><a href="/service-level">${escapeHtml(words.serviceLevel)}</a><a href="${home}">${escapeHtml(words.docs)}</a></nav>
<p>© ${view.year} ${site}</p>
</footer>
</div>
</body>
</html>
`;
}
