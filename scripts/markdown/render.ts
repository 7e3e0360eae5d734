/**
 * The one Markdown renderer for the docs site (scripts/docs) and the legal pages (through the
 * Vite plugin beside this file): headings get stable ids and a permalink, relative `.md` links
 * become site links, and fenced code is highlighted at build time when a highlighter is given.
 */
import GithubSlugger from "github-slugger";
import MarkdownIt from "markdown-it";
import type { Token } from "markdown-it";
import type { Heading } from "../../src/server/modules/site-pages/docs-frame";

export type { Heading };

export interface RenderedMarkdown {
  /** The text of the leading `# ` heading; the body does not repeat it. */
  title: string;
  html: string;
  /** Every heading of level 2 and 3 in the body, in order. */
  headings: Heading[];
}

export interface MarkdownOptions {
  /** Highlights one fenced block; returns null to fall back to plain escaped code. */
  highlight?: (code: string, lang: string) => string | null;
  /** Rewrites a relative link to a `.md` file (`guide.md#part`) to its address on the site. */
  resolveMarkdownLink?: (href: string) => string;
  /** The accessible name of each heading's permalink. */
  headingLinkLabel?: string;
}

export interface CodeExample {
  lang: string;
  /** The fence's words after the language, e.g. `example` or `example=curl`. */
  flags: string[];
  code: string;
}

const TOC_LEVELS = new Set([2, 3]);
const MARKDOWN_LINK = /^(?![a-z][a-z0-9+.-]*:|\/|#)([^?#]+\.md)(#.*)?$/i;

function headingText(inline: Token | undefined): string {
  return (inline?.children ?? [])
    .filter((child) => child.type === "text" || child.type === "code_inline")
    .map((child) => child.content)
    .join("");
}

const EXPLICIT_ID = /\s*\{#([A-Za-z0-9_-]+)\}\s*$/;

/**
 * A heading may end in `{#id}` to give its id: a translated page keeps the English page's ids, so
 * links between pages and a switch of language land on the same section.
 */
function explicitId(inline: Token | undefined): string | null {
  const last = inline?.children?.at(-1);
  const match = last?.type === "text" ? EXPLICIT_ID.exec(last.content) : null;
  if (!inline || !last || !match) return null;
  last.content = last.content.slice(0, match.index);
  inline.content = inline.content.replace(EXPLICIT_ID, "");
  return match[1]!;
}

function splitTitle(source: string): { title: string; body: string } {
  const match = /^\s*#\s+(.+?)\s*#*\s*(?:\r?\n|$)/.exec(source);
  if (!match) return { title: "", body: source };
  return { title: match[1]!, body: source.slice(match[0].length) };
}

export function fenceInfo(info: string): { lang: string; flags: string[] } {
  const [lang = "", ...flags] = info.trim().split(/\s+/).filter(Boolean);
  return { lang: lang.toLowerCase(), flags };
}

export function createMarkdownRenderer(options: MarkdownOptions = {}) {
  const md = new MarkdownIt({ html: true, linkify: false, typographer: false });

  md.core.ruler.push("tollgate_headings_and_links", (state) => {
    const slugger = new GithubSlugger();
    const headings = (state.env as { headings: Heading[] }).headings;
    state.tokens.forEach((token, i) => {
      if (token.type === "heading_open") {
        const explicit = explicitId(state.tokens[i + 1]);
        const text = headingText(state.tokens[i + 1]);
        const id = explicit ? slugger.slug(explicit) : slugger.slug(text);
        token.attrSet("id", id);
        const close = state.tokens.slice(i).find((t) => t.type === "heading_close");
        if (close) close.meta = { id };
        const level = Number(token.tag.slice(1));
        if (TOC_LEVELS.has(level)) headings.push({ level, id, text });
      }
      // A column's alignment as a class: markdown-it writes a style attribute, which the pages' CSP refuses.
      if (token.type === "th_open" || token.type === "td_open") {
        const align = /^text-align:(left|center|right)$/.exec(String(token.attrGet("style") ?? ""))?.[1];
        if (align) {
          token.attrs = (token.attrs ?? []).filter(([name]) => name !== "style");
          token.attrJoin("class", `align-${align}`);
        }
      }
      if (token.type === "inline" && options.resolveMarkdownLink) {
        for (const child of token.children ?? []) {
          const href = child.type === "link_open" ? String(child.attrGet("href") ?? "") : "";
          if (MARKDOWN_LINK.test(href)) child.attrSet("href", options.resolveMarkdownLink(href));
        }
      }
    });
  });

  // A table whose header is empty (`| | |`) is a list of facts: no header row, each row's first cell its label (a row header).
  md.core.ruler.push("tollgate_fact_tables", (state) => {
    const tokens = state.tokens;
    for (let i = 0; i < tokens.length; i++) {
      if (tokens[i]!.type !== "table_open" || tokens[i + 1]?.type !== "thead_open") continue;
      const headEnd = tokens.findIndex((token, at) => at > i && token.type === "thead_close");
      const head = tokens.slice(i + 1, headEnd + 1);
      if (head.some((token) => token.type === "inline" && token.content.trim() !== "")) continue;
      tokens[i]!.attrJoin("class", "facts");
      tokens.splice(i + 1, head.length);
      let rowHeader = false;
      for (let at = i + 1; at < tokens.length && tokens[at]!.type !== "table_close"; at++) {
        const token = tokens[at]!;
        if (token.type === "tr_open") rowHeader = true;
        else if (rowHeader && (token.type === "td_open" || token.type === "td_close")) {
          token.type = token.type === "td_open" ? "th_open" : "th_close";
          token.tag = "th";
          if (token.type === "th_open") token.attrSet("scope", "row");
          else rowHeader = false;
        }
      }
    }
  });

  // A code in a table cell may break after an underscore or a slash within it (`idempotency_<wbr>in_progress`,
  // `application/<wbr>json`): whole, the longest codes pushed the columns after them off a phone's screen.
  md.core.ruler.push("tollgate_cell_codes", (state) => {
    let inCell = false;
    for (const token of state.tokens) {
      if (token.type === "td_open" || token.type === "th_open") inCell = true;
      else if (token.type === "td_close" || token.type === "th_close") inCell = false;
      else if (inCell && token.type === "inline") {
        for (const child of token.children ?? []) if (child.type === "code_inline") child.meta = { inTableCell: true };
      }
    }
  });
  md.renderer.rules.code_inline = (tokens, idx, _opts, _env, self) => {
    const token = tokens[idx]!;
    const text = md.utils.escapeHtml(token.content);
    const inCell = (token.meta as { inTableCell?: boolean } | null)?.inTableCell;
    return `<code${self.renderAttrs(token)}>${inCell ? text.replace(/_|(?<=\w)\//g, "$&<wbr>") : text}</code>`;
  };

  md.renderer.rules.heading_close = (tokens, idx) => {
    const token = tokens[idx]!;
    const id = (token.meta as { id?: string } | null)?.id;
    const anchor = id ? `<a class="heading-anchor" href="#${md.utils.escapeHtml(id)}" aria-label="${md.utils.escapeHtml(options.headingLinkLabel ?? "Link to this section")}">#</a>` : "";
    return `${anchor}</${token.tag}>\n`;
  };

  const plainFence = md.renderer.rules.fence!;
  md.renderer.rules.fence = (tokens, idx, opts, env, self) => {
    const token = tokens[idx]!;
    const { lang } = fenceInfo(token.info);
    const highlighted = lang && options.highlight ? options.highlight(token.content, lang) : null;
    return highlighted ?? plainFence(tokens, idx, opts, env, self);
  };

  return {
    render(source: string): RenderedMarkdown {
      const { title, body } = splitTitle(source);
      const env = { headings: [] as Heading[] };
      const html = md.render(body, env);
      return { title, html, headings: env.headings };
    },
  };
}

/** The fenced blocks carrying the `example` flag, in order: the docs' runnable examples. */
export function extractExamples(source: string): CodeExample[] {
  const md = new MarkdownIt();
  return md
    .parse(source, {})
    .filter((token) => token.type === "fence")
    .map((token) => ({ ...fenceInfo(token.info), code: token.content }))
    .filter((block) => block.flags.some((flag) => flag === "example" || flag.startsWith("example=")));
}
