/**
 * The docs in both languages, from their sources (no build needed): the same pages, the same
 * heading ids (so links between pages and the language switch land on the same section), no
 * English paragraph left untranslated in a zh-CN page, and the glossary's words throughout.
 */
import fs from "node:fs";
import path from "node:path";
import MarkdownIt from "markdown-it";
import { describe, expect, it } from "vitest";
import { GUIDE_SECTIONS, languageSiteDir } from "../../scripts/docs/build-docs";
import { DESCRIPTION_ZH, SUMMARY_ZH, TAG_ZH } from "../../scripts/docs/api-reference-zh";
import { expandGeneratedBlocks } from "../../scripts/docs/error-tables";
import { CONSOLE_MEANING_ZH, GATEWAY_ADVICE_ZH, GATEWAY_MEANING_ZH } from "../../scripts/docs/error-tables-zh";
import { DOCS_STRINGS, type DocsLanguage } from "../../src/server/modules/site-pages/docs-languages";
import { priceHtml } from "../../src/server/modules/site-pages/docs";
import type { PublicTool } from "../../src/shared/catalog";
import { toolPageMarkdown, toolsOverviewMarkdown } from "../../scripts/docs/tool-pages";
import { loadCatalog } from "../../src/server/modules/catalog/catalog-file";
import { publicTool } from "../../src/server/modules/catalog/public-tool";
import { toolText } from "../../src/shared/tool-text";
import { createMarkdownRenderer } from "../../scripts/markdown/render";
import { GLOSSARY, INFORMAL_YOU } from "../../src/shared/glossary";
import { zhCN } from "../../src/web/i18n/zh-CN";

const root = path.resolve(".");
const enDir = languageSiteDir(root, "en");
const zhDir = languageSiteDir(root, "zh-CN");

/** Every Markdown page of a language's folder, as paths relative to it (the other languages' folders left out). */
function pagesOf(dir: string): string[] {
  const out: string[] = [];
  const walk = (sub: string) => {
    for (const entry of fs.readdirSync(path.join(dir, sub), { withFileTypes: true })) {
      const rel = path.posix.join(sub, entry.name);
      if (entry.isDirectory() && !(dir === enDir && sub === "" && entry.name === "zh-CN")) walk(rel);
      else if (entry.name.endsWith(".md")) out.push(rel);
    }
  };
  walk("");
  return out.sort();
}

const read = (language: DocsLanguage, page: string) =>
  expandGeneratedBlocks(fs.readFileSync(path.join(languageSiteDir(root, language), page), "utf8"), page, language);

function headingIds(markdown: string): string[] {
  return [...createMarkdownRenderer().render(markdown).html.matchAll(/<h[1-6] id="([^"]+)"/g)].map((m) => m[1]!);
}

const CJK = /[\u3400-\u9fff\uf900-\ufaff]/;
const LATIN_WORD = /[A-Za-z][A-Za-z'’-]*/g;
/** More Latin words than this in a paragraph with no Chinese character marks it untranslated. */
const MAX_LATIN_WORDS = 4;

/**
 * The prose of a Markdown page: the text of each paragraph, list item, heading and table cell,
 * without code (fenced or inline), link targets or HTML comments.
 */
function proseBlocks(markdown: string): string[] {
  return new MarkdownIt()
    .parse(markdown, {})
    .filter((token) => token.type === "inline")
    .map((token) =>
      (token.children ?? [])
        .filter((child) => child.type === "text")
        .map((child) => child.content)
        .join("")
        .trim(),
    )
    .filter(Boolean);
}

/** The blocks the detector takes for English left in a Chinese page. */
export function untranslated(markdown: string): string[] {
  return proseBlocks(markdown).filter((text) => !CJK.test(text) && (text.match(LATIN_WORD)?.length ?? 0) > MAX_LATIN_WORDS);
}

function glossaryProblems(text: string): string[] {
  const problems: string[] = [];
  for (const term of GLOSSARY) {
    for (const variant of term.avoid) if (text.includes(variant)) problems.push(`"${variant}" instead of "${term.zh}" (${term.en})`);
  }
  return problems;
}

const zhPages = pagesOf(zhDir);
/** The catalog the app ships, in the words its zh-CN translations give. */
const shippedTools = loadCatalog(path.join(root, "config/tools.json"), {}).map((tool) => toolText(publicTool(tool), "zh-CN"));
const zh = DOCS_STRINGS["zh-CN"];
/** The tool pages' and the overview's templates, and the words of the shipped tools the server fills them with. */
const zhGenerated = [
  toolPageMarkdown({ generated: "generic" }, "¥", zh),
  toolPageMarkdown({ generated: "models" }, "¥", zh),
  toolsOverviewMarkdown(zh),
  ...shippedTools.map((tool) => [tool.name, tool.description, tool.category, tool.unit ?? ""].join("\n\n")),
];

describe("the docs in English and Chinese", () => {
  it("have the same pages", () => {
    expect(zhPages).toEqual(pagesOf(enDir));
    const guides = GUIDE_SECTIONS.flatMap((s) => s.slugs.map((slug) => `${slug}.md`));
    for (const guide of guides) expect(zhPages).toContain(guide);
  });

  it("give each page the same heading ids, so every link between pages finds its section in both", () => {
    for (const page of zhPages) expect(headingIds(read("zh-CN", page)), page).toEqual(headingIds(read("en", page)));
  });

  it("link to sections that exist, in each language", () => {
    for (const language of ["en", "zh-CN"] as const) {
      for (const page of zhPages) {
        for (const [, target, anchor] of read(language, page).matchAll(/\]\(([\w./-]+\.md)#([\w-]+)\)/g)) {
          const file = path.posix.normalize(path.posix.join(path.posix.dirname(page), target!));
          expect(headingIds(read(language, file)), `${language}/${page} → ${file}#${anchor}`).toContain(anchor);
        }
      }
    }
  });

  it("end no sentence on a dash (a parenthesis between dashes at a sentence's end drops its closing one)", () => {
    for (const language of ["en", "zh-CN"] as const) {
      for (const page of zhPages) expect(proseBlocks(read(language, page)).filter((text) => /[—–]\s*[.。]/.test(text)), `${language}/${page}`).toEqual([]);
    }
  });

  it("have the same code examples, byte for byte", () => {
    const fences = (markdown: string) => [...markdown.matchAll(/^```[^\n]*\n[\s\S]*?^```$/gm)].map((m) => m[0]);
    for (const page of zhPages) expect(fences(read("zh-CN", page)), page).toEqual(fences(read("en", page)));
  });
});

describe("the untranslated-paragraph detector", () => {
  it("flags a paragraph, list item or table cell of more than four Latin words and no Chinese, outside code", () => {
    expect(untranslated("说明。\n\nThis paragraph was left in English.\n\n- 一项\n- Another item left in English\n")).toEqual([
      "This paragraph was left in English.",
      "Another item left in English",
    ]);
    expect(untranslated("| a | b |\n|---|---|\n| `x` | Width and height in pixels |\n")).toEqual(["Width and height in pixels"]);
  });

  it("lets code, short names and Chinese prose with English words through", () => {
    expect(untranslated("```sh\necho this is code with many words\n```\n\n`a code span with many words`\n\n### JavaScript\n\n使用 OpenAI SDK and many English words。\n")).toEqual([]);
  });
});

describe("the zh-CN docs", () => {
  it("leave no English paragraph untranslated (hand-written pages and the generated tool pages)", () => {
    for (const page of zhPages) expect(untranslated(read("zh-CN", page)), page).toEqual([]);
    for (const markdown of zhGenerated) expect(untranslated(markdown)).toEqual([]);
  });

  it(`use the glossary's words and address the reader as 您`, () => {
    for (const page of zhPages) {
      const prose = proseBlocks(read("zh-CN", page)).join("\n");
      expect(glossaryProblems(prose), page).toEqual([]);
      expect(prose.includes(INFORMAL_YOU), `${page} says ${INFORMAL_YOU}`).toBe(false);
    }
    expect(glossaryProblems(zhGenerated.flatMap(proseBlocks).join("\n"))).toEqual([]);
    const generatedWords = [SUMMARY_ZH, TAG_ZH, DESCRIPTION_ZH, CONSOLE_MEANING_ZH, GATEWAY_MEANING_ZH, GATEWAY_ADVICE_ZH]
      .flatMap((table) => Object.values(table))
      .join("\n")
      .replace(/`[^`]*`/g, "");
    expect(glossaryProblems(generatedWords)).toEqual([]);
    expect(generatedWords.includes(INFORMAL_YOU)).toBe(false);
  });

  it("price an LLM tool's models with Chinese commas and semicolons, as the English page does with its own", () => {
    const llm = { models: [{ id: "m-1", input: "0.15", output: "0.60" }, { id: "m-2", input: "1.00", output: "2.00" }] } as PublicTool;
    const outsideCode = (html: string) => html.replace(/<code>[^<]*<\/code>/g, "");
    expect(outsideCode(priceHtml(llm, null, "zh-CN"))).toBe(" 输入 ¥0.15 / 百万 tokens，输出 ¥0.60 / 百万 tokens； 输入 ¥1.00 / 百万 tokens，输出 ¥2.00 / 百万 tokens");
    expect(outsideCode(priceHtml(llm, null, "en"))).toBe(" ¥0.15 / 1M input tokens, ¥0.60 / 1M output tokens;  ¥1.00 / 1M input tokens, ¥2.00 / 1M output tokens");
  });

  it("and the site's zh-CN catalogue use the same words", () => {
    const strings: string[] = [];
    const collect = (node: unknown) => {
      if (typeof node === "string") strings.push(node);
      else if (node && typeof node === "object") Object.values(node).forEach(collect);
    };
    collect(zhCN);
    expect(glossaryProblems(strings.join("\n"))).toEqual([]);
    for (const term of GLOSSARY.filter((t) => ["余额", "API 密钥", "调用", "充值", "兑换码"].includes(t.zh))) {
      expect(strings.some((s) => s.includes(term.zh)), term.zh).toBe(true);
    }
  });
});
