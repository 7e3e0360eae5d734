/**
 * The docs pages, composed at start-up from the bodies the build rendered (Markdown and code
 * highlighting stay in the build: scripts/docs/build-docs.ts) and the server's own catalog and
 * PUBLIC_URL: the tool pages, the tools overview, every page's sidebar and every example's base
 * address follow the catalog and the settings the server started with (decision 056).
 */
import type { PublicTool } from "#shared/catalog";
import { defaultOutputCap, type Tool } from "../catalog";
import { CURRENCY_SYMBOL } from "#shared/site-config";
import { fillSlots, repeatElement } from "#shared/page-slots";
import { escapeHtml } from "#shared/template";
import { planLines } from "#shared/plan-lines";
import { toolText } from "#shared/tool-text";
import { renderDocsPage, type Heading, type NavLink, type NavSection } from "./docs-frame";
import { DOCS_LANGUAGES, DOCS_STRINGS, docsHref, type DocsLanguage } from "./docs-languages";

/** The hand-written pages of docs/site (and of each language's folder in it), in sidebar order. */
export const GUIDE_SECTIONS = [
  { section: "start", slugs: ["index", "quickstart"] },
  { section: "guides", slugs: ["authentication", "billing", "pricing", "alerts", "errors", "operators"] },
] as const;

/** Where the build leaves the docs' templates: beside the web root, not served. */
export const DOCS_TEMPLATES_FILE = "docs-templates.json";

/** A tool page's body when no page of docs/site/tools is written for it. */
export const GENERIC_TOOL_BODY = "generic";
export const MODELS_TOOL_BODY = "models";

export interface PageBody {
  slug: string;
  title: string;
  /** Rendered HTML with slots (#shared/page-slots): `publicUrl` anywhere, a tool's fields in the tool templates. */
  html: string;
  headings: Heading[];
}

export interface LanguageTemplates {
  /** The hand-written pages of GUIDE_SECTIONS. */
  guides: PageBody[];
  api: PageBody;
  /** The tools overview: its table has one row of slots, written once per tool. */
  overview: PageBody;
  /** A tool page's body (title `name`) by what it is written from: a page of docs/site/tools (by file name), GENERIC_TOOL_BODY or MODELS_TOOL_BODY. */
  toolBodies: Record<string, { html: string; headings: Heading[] }>;
  /** The facts whose words are Markdown, rendered. */
  cells: { open: string; needsApproval: string; builtIn: string; upstream: string };
}

export interface DocsTemplates {
  cssHref: string;
  languages: Record<DocsLanguage, LanguageTemplates>;
}

export interface DocsTool extends PublicTool {
  /** The built-in handler's name, or null for a tool served by an upstream provider. */
  builtin: string | null;
  /** An OpenAI-compatible tool's output tokens held for a request that sets no cap; null for any other tool. */
  defaultOutputCap: number | null;
}

/** A tool as its docs page shows it: what the public catalog says, and what its handler adds. */
export function docsTool(tool: PublicTool, handler: Tool["handler"] | undefined): DocsTool {
  return {
    ...tool,
    builtin: handler?.type === "builtin" ? handler.name : null,
    defaultOutputCap: handler?.type === "http" && handler.protocol === "openai" ? defaultOutputCap(handler) : null,
  };
}

export function toolSlug(tool: Pick<PublicTool, "id">): string {
  return `tools/${tool.id}`;
}

/** A tool's price in a language's words, then its tiers, free quota and packages a line each, as HTML. */
export function priceHtml(tool: PublicTool, unit: string | null, language: DocsLanguage): string {
  const words = DOCS_STRINGS[language];
  const amount = (value: string) => `${CURRENCY_SYMBOL}${value}`;
  if (tool.models) {
    const { directions, models } = words.tool.priceSeparators;
    return tool.models
      .map((m) => `<code>${escapeHtml(m.id)}</code> ${escapeHtml(words.tool.perMillion(amount(m.input), "input"))}${directions}${escapeHtml(words.tool.perMillion(amount(m.output), "output"))}`)
      .join(models);
  }
  return planLines(tool, language, CURRENCY_SYMBOL, unit, (price) => words.tool.perUnit(price, unit))
    .map(escapeHtml)
    .join("<br>");
}

function toolPage(tool: DocsTool, templates: LanguageTemplates, language: DocsLanguage, urls: { publicUrl: string }): PageBody {
  const words = DOCS_STRINGS[language];
  const text = toolText(tool, language);
  const body = templates.toolBodies[tool.id] ?? (tool.builtin ? templates.toolBodies[tool.builtin] : undefined) ?? templates.toolBodies[tool.models ? MODELS_TOOL_BODY : GENERIC_TOOL_BODY]!;
  const models = tool.models ?? [];
  const html = models.length > 0 && body.html.includes("tgslotmodelIdtgslot")
    ? repeatElement(body.html, "tr", "modelId", models.map((m) => ({ modelId: escapeHtml(m.id), modelInput: escapeHtml(m.input), modelCached: escapeHtml(m.cachedInput), modelOutput: escapeHtml(m.output) })))
    : body.html;
  const values = {
    ...urls,
    id: escapeHtml(tool.id),
    name: escapeHtml(text.name),
    description: escapeHtml(text.description),
    category: escapeHtml(text.category),
    method: escapeHtml(tool.method),
    price: priceHtml(tool, text.unit ?? null, language),
    rateLimit: escapeHtml(words.tool.facts.perMinute(tool.rateLimitPerMinute.toLocaleString("en-US"))),
    access: tool.requiresApproval ? templates.cells.needsApproval : templates.cells.open,
    provider: tool.builtin ? templates.cells.builtIn : templates.cells.upstream,
    model: escapeHtml(models[0]?.id ?? ""),
    defaultOutputCap: (tool.defaultOutputCap ?? 0).toLocaleString("en-US"),
  };
  return { slug: toolSlug(tool), title: text.name, html: fillSlots(html, values), headings: body.headings };
}

function overview(tools: readonly DocsTool[], templates: LanguageTemplates, language: DocsLanguage): PageBody {
  const words = DOCS_STRINGS[language];
  const rows = tools.map((tool) => {
    const text = toolText(tool, language);
    return {
      id: escapeHtml(tool.id),
      name: escapeHtml(text.name),
      description: escapeHtml(text.description),
      price: priceHtml(tool, text.unit ?? null, language),
      access: escapeHtml(tool.requiresApproval ? words.tool.needsApprovalShort : words.tool.openAccess),
    };
  });
  return { ...templates.overview, html: repeatElement(templates.overview.html, "tr", "id", rows) };
}

/** Every docs page in every language, by its address (`/docs.html`, `/docs/zh-CN/tools/echo.html`, …). */
export function renderDocs(templates: DocsTemplates, site: { tools: readonly DocsTool[]; siteName: string; publicUrl: string; year: number }): Map<string, string> {
  const pages = new Map<string, string>();
  const urls = { publicUrl: escapeHtml(site.publicUrl) };
  for (const language of DOCS_LANGUAGES) {
    const words = DOCS_STRINGS[language];
    const own = templates.languages[language];
    const tools = site.tools.map((tool) => toolPage(tool, own, language, urls));
    const withUrls = (page: PageBody) => ({ ...page, html: fillSlots(page.html, urls) });
    const bodies = [...own.guides.map(withUrls), withUrls(overview(site.tools, own, language)), ...tools, withUrls(own.api)];
    const titles = new Map(bodies.map((page) => [page.slug, page.title]));
    const link = (slug: string): NavLink => ({ title: words.navTitles[slug] ?? titles.get(slug) ?? slug, href: docsHref(slug, language) });
    const nav: NavSection[] = [
      ...GUIDE_SECTIONS.map((s) => ({ title: words.sections[s.section], links: s.slugs.map(link) })),
      { title: words.sections.tools, links: ["tools", ...tools.map((page) => page.slug)].map(link) },
      { title: words.sections.reference, links: [link("api")] },
    ];
    const order = nav.flatMap((section) => section.links);
    for (const page of bodies) {
      const href = docsHref(page.slug, language);
      const index = order.findIndex((l) => l.href === href);
      pages.set(
        href,
        renderDocsPage({
          language,
          words,
          alternates: DOCS_LANGUAGES.filter((other) => other !== language).map((other) => ({ language: other, name: DOCS_STRINGS[other].name, href: docsHref(page.slug, other) })),
          siteName: site.siteName,
          title: page.title,
          href,
          bodyHtml: page.html,
          headings: page.headings,
          nav,
          previous: order[index - 1] ?? null,
          next: order[index + 1] ?? null,
          cssHref: templates.cssHref,
          year: site.year,
        }),
      );
    }
  }
  return pages;
}
