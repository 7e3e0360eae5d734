/**
 * Generates the static docs site into the web build: Markdown pages from docs/site, one page per
 * catalog tool and the console API reference from the server itself, each wrapped in the site's
 * header and footer with a sidebar and a table of contents, code highlighted at build time.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { createHighlighter } from "shiki";
import { styleToClass } from "./highlight-classes";
import { CURRENCY_SYMBOL } from "../../src/shared/site-config";
import { fillPlaceholders } from "../../src/shared/template";
import { toolText } from "../../src/shared/tool-text";
import { createMarkdownRenderer } from "../markdown/render";
import { apiReferenceMarkdown } from "./api-reference";
import { expandGeneratedBlocks } from "./error-tables";
import { DOCS_LANGUAGES, DOCS_STRINGS, docsHref, sourceFolder, type DocsLanguage, type DocsStrings } from "./languages";
import { renderDocsPage, type NavLink, type NavSection } from "./page-template";
import { snapshotServer, type ServerSnapshot } from "./server-snapshot";
import { toolPageMarkdown, toolSlug, toolsOverviewMarkdown } from "./tool-pages";

const HIGHLIGHT_THEME = "github-light";
const HIGHLIGHT_LANGS = ["shellscript", "javascript", "typescript", "python", "json", "http"];
/** github-light's orange (variables, parameters) is 3.5:1 on white; WCAG AA wants 4.5:1 for text this size. */
const HIGHLIGHT_COLOUR_REPLACEMENTS = { "#e36209": "#b35000" };

/** The hand-written pages of docs/site (and of each language's folder in it), in sidebar order. */
export const GUIDE_SECTIONS = [
  { section: "start", slugs: ["index", "quickstart"] },
  { section: "guides", slugs: ["authentication", "billing", "pricing", "alerts", "errors", "operators"] },
] as const;

export { DOCS_LANGUAGES, docsHref };

/** The values `{{name}}` stands for in the docs' Markdown. */
export function docsTemplateValues(config: Pick<ServerSnapshot["config"], "siteName" | "companyName" | "contactEmail" | "publicUrl">) {
  return {
    siteName: config.siteName,
    companyName: config.companyName,
    contactEmail: config.contactEmail,
    publicUrl: config.publicUrl,
    apiBase: `${config.publicUrl}/api/v1`,
    gatewayBase: `${config.publicUrl}/v1/tools`,
    currency: CURRENCY_SYMBOL,
  };
}

interface SourcePage {
  slug: string;
  markdown: string;
}

function readOptional(file: string): string | null {
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8") : null;
}

/** The folder of a language's hand-written pages. */
export function languageSiteDir(root: string, language: DocsLanguage): string {
  return path.join(root, "docs/site", sourceFolder(language));
}

function sourcePages(
  siteDir: string,
  snapshot: ServerSnapshot,
  language: DocsLanguage,
  words: DocsStrings,
): { sections: { title: string; slugs: string[] }[]; pages: SourcePage[] } {
  const pages: SourcePage[] = GUIDE_SECTIONS.flatMap((section) =>
    section.slugs.map((slug) => ({
      slug,
      markdown: expandGeneratedBlocks(fs.readFileSync(path.join(siteDir, `${slug}.md`), "utf8"), `${slug}.md`, language),
    })),
  );
  // The tool pages in the language's words where the operator's catalog gives them.
  const tools = snapshot.tools.map((tool) => ({ ...tool, ...toolText(tool, language) }));
  pages.push({ slug: "tools", markdown: toolsOverviewMarkdown(tools, CURRENCY_SYMBOL, words) });
  for (const tool of tools) {
    const fragment =
      readOptional(path.join(siteDir, "tools", `${tool.id}.md`)) ??
      (tool.builtin ? readOptional(path.join(siteDir, "tools", `${tool.builtin}.md`)) : null);
    pages.push({ slug: toolSlug(tool), markdown: toolPageMarkdown(tool, fragment, CURRENCY_SYMBOL, words) });
  }
  pages.push({ slug: "api", markdown: apiReferenceMarkdown(snapshot.openapi, language) });
  const sections = [
    ...GUIDE_SECTIONS.map((s) => ({ title: words.sections[s.section], slugs: [...s.slugs] })),
    { title: words.sections.tools, slugs: ["tools", ...tools.map(toolSlug)] },
    { title: words.sections.reference, slugs: ["api"] },
  ];
  return { sections, pages };
}

function linkResolver(fromSlug: string, slugs: ReadonlySet<string>, language: DocsLanguage) {
  return (href: string): string => {
    const [file = "", fragment] = href.split("#", 2);
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(fromSlug), file)).replace(/\.md$/, "");
    if (!slugs.has(target)) throw new Error(`docs: ${fromSlug}.md links to ${href}, which is not a docs page`);
    return docsHref(target, language) + (fragment ? `#${fragment}` : "");
  };
}

function writeStylesheet(root: string, clientDir: string, highlightCss: string): string {
  const css = [path.join(root, "src/web/app.css"), path.join(root, "scripts/docs/docs.css")]
    .map((file) => fs.readFileSync(file, "utf8"))
    .concat(highlightCss)
    .join("\n");
  const name = `docs-${createHash("sha256").update(css).digest("hex").slice(0, 10)}.css`;
  fs.mkdirSync(path.join(clientDir, "assets"), { recursive: true });
  fs.writeFileSync(path.join(clientDir, "assets", name), css);
  return `/assets/${name}`;
}

export interface DocsBuildResult {
  /** Every page written, by its address (`/docs.html`, `/docs/quickstart.html`, …). */
  pages: string[];
  /** The address the examples were written with. */
  publicUrl: string;
}

export async function buildDocs(options: {
  root: string;
  clientDir: string;
  env?: Record<string, string | undefined>;
  snapshot?: ServerSnapshot;
}): Promise<DocsBuildResult> {
  const { root, clientDir } = options;
  const snapshot = options.snapshot ?? (await snapshotServer(options.env));
  const values = docsTemplateValues(snapshot.config);

  const highlighter = await createHighlighter({ themes: [HIGHLIGHT_THEME], langs: HIGHLIGHT_LANGS });
  const languages = new Set(highlighter.getLoadedLanguages());
  const highlightStyles = styleToClass();
  const highlight = (code: string, lang: string) =>
    languages.has(lang) ? highlighter.codeToHtml(code, {
          lang,
          theme: HIGHLIGHT_THEME,
          colorReplacements: HIGHLIGHT_COLOUR_REPLACEMENTS,
          transformers: [highlightStyles.transformer],
        }) : null;

  const built = DOCS_LANGUAGES.map((language) => {
    const words = DOCS_STRINGS[language];
    const { sections, pages } = sourcePages(languageSiteDir(root, language), snapshot, language, words);
    const slugs = new Set(pages.map((p) => p.slug));
    const rendered = pages.map((page) => {
      const markdown = fillPlaceholders(page.markdown, values);
      const unfilled = /\{\{(\w+)\}\}/.exec(markdown);
      if (unfilled) throw new Error(`docs: ${language}/${page.slug}.md uses {{${unfilled[1]}}}, which has no value`);
      const renderer = createMarkdownRenderer({
        highlight,
        resolveMarkdownLink: linkResolver(page.slug, slugs, language),
        headingLinkLabel: words.headingLink,
      });
      return { slug: page.slug, ...renderer.render(markdown) };
    });
    return { language, words, sections, rendered };
  });
  highlighter.dispose();

  const cssHref = writeStylesheet(root, clientDir, highlightStyles.css());
  const year = new Date().getFullYear();
  const written: string[] = [];
  for (const { language, words, sections, rendered } of built) {
    const titles = new Map(rendered.map((page) => [page.slug, page.title]));
    const nav: NavSection[] = sections.map((section) => ({
      title: section.title,
      links: section.slugs.map((slug) => ({ title: words.navTitles[slug] ?? titles.get(slug) ?? slug, href: docsHref(slug, language) })),
    }));
    const order: NavLink[] = nav.flatMap((section) => section.links);
    for (const page of rendered) {
      const href = docsHref(page.slug, language);
      const index = order.findIndex((link) => link.href === href);
      const html = renderDocsPage({
        language,
        words,
        alternates: DOCS_LANGUAGES.filter((other) => other !== language).map((other) => ({
          language: other,
          name: DOCS_STRINGS[other].name,
          href: docsHref(page.slug, other),
        })),
        siteName: snapshot.config.siteName,
        title: page.title,
        href,
        bodyHtml: page.html,
        headings: page.headings,
        nav,
        previous: order[index - 1] ?? null,
        next: order[index + 1] ?? null,
        cssHref,
        year,
      });
      const file = path.join(clientDir, href);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, html);
      written.push(href);
    }
  }
  return { pages: written, publicUrl: snapshot.config.publicUrl };
}
