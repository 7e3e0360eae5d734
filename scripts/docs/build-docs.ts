/**
 * Renders the docs into templates the server makes its pages from at start-up
 * (src/server/modules/site-pages/docs.ts): the Markdown pages of docs/site, the console API reference
 * from the server itself and the tool pages' templates, each language's bodies with code
 * highlighted here, and the slots the server fills from its own catalog and PUBLIC_URL.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { createHighlighter } from "shiki";
import { styleToClass } from "./highlight-classes";
import { CURRENCY_SYMBOL } from "../../src/shared/site-config";
import { slot } from "../../src/shared/page-slots";
import { fillPlaceholders } from "../../src/shared/template";
import { createMarkdownRenderer } from "../markdown/render";
import { apiReferenceMarkdown } from "./api-reference";
import { expandGeneratedBlocks } from "./error-tables";
import { DOCS_LANGUAGES, DOCS_STRINGS, docsHref, sourceFolder, type DocsLanguage } from "../../src/server/modules/site-pages/docs-languages";
import {
  DOCS_TEMPLATES_FILE,
  GENERIC_TOOL_BODY,
  GUIDE_SECTIONS,
  MODELS_TOOL_BODY,
  toolSlug,
  type DocsTemplates,
  type LanguageTemplates,
  type PageBody,
} from "../../src/server/modules/site-pages/docs";
import { snapshotServer, type ServerSnapshot } from "./server-snapshot";
import { toolPageMarkdown, toolsOverviewMarkdown, type ToolBodySource } from "./tool-pages";

const HIGHLIGHT_THEME = "github-light";
const HIGHLIGHT_LANGS = ["shellscript", "javascript", "typescript", "python", "json", "http"];
/** github-light's orange (variables, parameters) is 3.5:1 on white; WCAG AA wants 4.5:1 for text this size. */
const HIGHLIGHT_COLOUR_REPLACEMENTS = { "#e36209": "#b35000" };

export { DOCS_LANGUAGES, GUIDE_SECTIONS, docsHref };

/** The values `{{name}}` stands for in the docs' Markdown; the site's address is a slot the server fills with its PUBLIC_URL. */
export function docsTemplateValues(config: Pick<ServerSnapshot["config"], "siteName" | "companyName" | "contactEmail">, publicUrl = slot("publicUrl")) {
  return {
    siteName: config.siteName,
    companyName: config.companyName,
    contactEmail: config.contactEmail,
    publicUrl,
    apiBase: `${publicUrl}/api/v1`,
    gatewayBase: `${publicUrl}/v1/tools`,
    currency: CURRENCY_SYMBOL,
  };
}

/** The folder of a language's hand-written pages. */
export function languageSiteDir(root: string, language: DocsLanguage): string {
  return path.join(root, "docs/site", sourceFolder(language));
}

/** The pages of docs/site/tools by file name: a tool's page is the one named by its id, else by its built-in handler. */
function toolFragments(siteDir: string): Record<string, string> {
  const dir = path.join(siteDir, "tools");
  if (!fs.existsSync(dir)) return {};
  return Object.fromEntries(
    fs.readdirSync(dir).filter((file) => file.endsWith(".md")).map((file) => [file.slice(0, -3), fs.readFileSync(path.join(dir, file), "utf8")]),
  );
}

/** The slug the tool templates are rendered at, so their links resolve as a tool page's. */
const TEMPLATE_TOOL_SLUG = toolSlug({ id: slot("id") });

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
  /** Where the templates were written. */
  file: string;
  templates: DocsTemplates;
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
  const loaded = new Set(highlighter.getLoadedLanguages());
  const highlightStyles = styleToClass();
  const highlight = (code: string, lang: string) =>
    loaded.has(lang)
      ? highlighter.codeToHtml(code, {
          lang,
          theme: HIGHLIGHT_THEME,
          colorReplacements: HIGHLIGHT_COLOUR_REPLACEMENTS,
          transformers: [highlightStyles.transformer],
        })
      : null;

  const languages = {} as Record<DocsLanguage, LanguageTemplates>;
  for (const language of DOCS_LANGUAGES) {
    const words = DOCS_STRINGS[language];
    const siteDir = languageSiteDir(root, language);
    const guideSlugs: string[] = GUIDE_SECTIONS.flatMap((section) => [...section.slugs]);
    const fragments = toolFragments(siteDir);
    // A guide may link to a tool with a page of its own in docs/site/tools (the quickstart's echo):
    // that tool's page is there while the catalog has it.
    const slugs = new Set([...guideSlugs, "tools", "api", TEMPLATE_TOOL_SLUG, ...Object.keys(fragments).map((name) => toolSlug({ id: name }))]);
    const render = (slug: string, markdown: string, where = slug): PageBody => {
      const filled = fillPlaceholders(markdown, values);
      const unfilled = /\{\{(\w+)\}\}/.exec(filled);
      if (unfilled) throw new Error(`docs: ${language}/${where}.md uses {{${unfilled[1]}}}, which has no value`);
      const renderer = createMarkdownRenderer({ highlight, resolveMarkdownLink: linkResolver(slug, slugs, language), headingLinkLabel: words.headingLink });
      const page = renderer.render(filled);
      const slotted = [page.title, ...page.headings.map((h) => h.text)].find((text) => text.includes("tgslot") && text !== slot("name"));
      if (slotted) throw new Error(`docs: ${language}/${where}.md has a slot in a title or heading (${slotted}), where the server fills none`);
      return { slug, title: page.title, html: page.html, headings: page.headings };
    };
    const toolBody = (source: ToolBodySource, where: string) => {
      const { html, headings } = render(TEMPLATE_TOOL_SLUG, toolPageMarkdown(source, CURRENCY_SYMBOL, words), where);
      return { html, headings };
    };
    const inline = (markdown: string) => render("tools", `# -\n\n${markdown}\n`).html.replace(/^<p>|<\/p>\n?$/g, "");
    languages[language] = {
      guides: guideSlugs.map((slug) => render(slug, expandGeneratedBlocks(fs.readFileSync(path.join(siteDir, `${slug}.md`), "utf8"), `${slug}.md`, language))),
      api: render("api", apiReferenceMarkdown(snapshot.openapi, language)),
      overview: render("tools", toolsOverviewMarkdown(words)),
      toolBodies: {
        ...Object.fromEntries(Object.entries(fragments).map(([name, fragment]) => [name, toolBody({ fragment }, `tools/${name}`)])),
        [GENERIC_TOOL_BODY]: toolBody({ generated: "generic" }, "tools/(generic)"),
        [MODELS_TOOL_BODY]: toolBody({ generated: "models" }, "tools/(models)"),
      },
      cells: {
        open: inline(words.tool.open),
        needsApproval: inline(words.tool.needsApproval),
        builtIn: inline(words.tool.facts.builtIn),
        upstream: inline(words.tool.facts.upstream),
      },
    };
  }
  highlighter.dispose();

  const templates: DocsTemplates = { cssHref: writeStylesheet(root, clientDir, highlightStyles.css()), languages };
  const file = path.join(clientDir, "..", DOCS_TEMPLATES_FILE);
  fs.writeFileSync(file, JSON.stringify(templates));
  return { file, templates };
}
