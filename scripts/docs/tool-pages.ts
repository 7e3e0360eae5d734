/**
 * The Markdown of the tool pages' templates: every field of a tool is a slot that the server fills
 * from its catalog at start-up (src/server/modules/site-pages/docs.ts), so a page written here serves
 * any tool of the catalog the server loads.
 */
import { slot } from "../../src/shared/page-slots";
import { DOCS_STRINGS, type DocsStrings } from "../../src/server/modules/site-pages/docs-languages";

const s = slot;

/** An OpenAI-compatible tool's models (one table row of slots, one per model) and how to call it with the SDK (the docs tests run the example). */
function modelsSection(currency: string, words: DocsStrings): string {
  return [
    `## ${words.tool.models.title} {#models}`,
    words.tool.models.intro(s("defaultOutputCap")),
    [words.tool.models.header, "|---|---:|---:|---:|", `| \`${s("modelId")}\` | ${currency}${s("modelInput")} | ${currency}${s("modelCached")} | ${currency}${s("modelOutput")} |`].join("\n"),
    `## ${words.tool.example} {#example}`,
    words.tool.models.exampleIntro,
    codeBlock("js", [
      'import OpenAI from "openai";',
      "",
      'const client = new OpenAI({ apiKey: process.env.API_KEY, baseURL: "{{gatewayBase}}/{{toolId}}" });',
      "",
      `const answer = await client.chat.completions.create({ model: "${s("model")}", messages: [{ role: "user", content: "Hello" }] });`,
      "console.log(answer.choices[0].message.content);",
      "",
      `const stream = await client.chat.completions.create({ model: "${s("model")}", messages: [{ role: "user", content: "Hello" }], stream: true });`,
      'for await (const chunk of stream) process.stdout.write(chunk.choices[0]?.delta.content ?? "");',
    ]),
  ].join("\n\n");
}

/** A fenced code block: its lines joined by single line breaks, where the page's blocks are joined by blank lines. */
const codeBlock = (language: string, lines: string[]) => ["```" + language, ...lines, "```"].join("\n");

function genericExample(words: DocsStrings): string {
  return [
    `## ${words.tool.example} {#example}`,
    words.tool.genericExample,
    codeBlock("sh", [
      `curl -X ${s("method")} "{{gatewayBase}}/{{toolId}}" \\`,
      '  -H "Authorization: Bearer $API_KEY" \\',
      '  -H "content-type: application/json" \\',
      "  -d '{}'",
    ]),
  ].join("\n\n");
}

/** What a tool page is written from: the tool's own page of docs/site/tools (request, response, example), or the generated example of a tool with or without models. */
export type ToolBodySource = { fragment: string } | { generated: "generic" | "models" };

/** A tool page's Markdown, its title the tool's name. */
export function toolPageMarkdown(source: ToolBodySource, currency: string, words: DocsStrings = DOCS_STRINGS.en): string {
  const f = words.tool.facts;
  const models = "generated" in source && source.generated === "models";
  const facts = [
    "| | |",
    "|---|---|",
    `| ${f.id} | \`${s("id")}\` |`,
    // An OpenAI-compatible tool is called on its own paths below this address, through an SDK's base URL.
    models ? `| ${f.baseUrl} | \`{{gatewayBase}}/${s("id")}\` |` : `| ${f.call} | \`${s("method")} {{gatewayBase}}/${s("id")}\` |`,
    `| ${f.price} | ${s("price")} — ${f.chargedNote} |`,
    `| ${f.rateLimit} | ${s("rateLimit")} |`,
    `| ${f.access} | ${s("access")} |`,
    `| ${f.provider} | ${s("provider")} |`,
    `| ${f.category} | ${s("category")} |`,
  ].join("\n");
  const body = "fragment" in source ? source.fragment : models ? modelsSection(currency, words) : genericExample(words);
  return [`# ${s("name")}`, s("description"), facts, words.tool.keyNote, words.tool.tryIt("{{toolId}}"), body].join("\n\n").replace(/\{\{toolId\}\}/g, s("id")) + "\n";
}

/** The tools overview: one row of slots, written once per tool. */
export function toolsOverviewMarkdown(words: DocsStrings = DOCS_STRINGS.en): string {
  return [
    `# ${words.tool.overviewTitle}`,
    words.tool.overviewIntro,
    [words.tool.overviewHeader, "|---|---|---|---|", `| [${s("name")}](tools/${s("id")}.md) | ${s("description")} | ${s("price")} | ${s("access")} |`].join("\n"),
  ].join("\n\n") + "\n";
}

