/** The Markdown of the tool pages, generated from the operator's catalog. */
import type { PublicModel, PublicTool } from "../../src/shared/catalog";
import { DOCS_STRINGS, type DocsStrings } from "./languages";

export interface DocTool extends PublicTool {
  /** The built-in handler's name, or null for a tool served by an upstream provider. */
  builtin: string | null;
}

export function toolSlug(tool: Pick<PublicTool, "id">): string {
  return `tools/${tool.id}`;
}

export function priceLabel(tool: Pick<PublicTool, "price" | "unit" | "models">, currency: string, words: DocsStrings = DOCS_STRINGS.en): string {
  if (tool.models) {
    return tool.models.map((model) => `\`${model.id}\` ${words.tool.perMillion(`${currency}${model.input}`, "input")}, ${words.tool.perMillion(`${currency}${model.output}`, "output")}`).join("; ");
  }
  return words.tool.perUnit(`${currency}${tool.price}`, tool.unit ?? null);
}

/** An OpenAI-compatible tool's models and prices, and how to call it with the SDK (the docs tests run the example). */
function modelsSection(tool: DocTool, models: PublicModel[], currency: string, words: DocsStrings): string {
  const price = (amount: string) => `${currency}${amount}`;
  const rows = models.map((model) => `| \`${model.id}\` | ${price(model.input)} | ${price(model.cachedInput)} | ${price(model.output)} |`);
  const model = models[0]!.id;
  return [
    `## ${words.tool.models.title} {#models}`,
    words.tool.models.intro,
    [words.tool.models.header, "|---|---:|---:|---:|", ...rows].join("\n"),
    `## ${words.tool.example} {#example}`,
    words.tool.models.exampleIntro,
    "```js",
    'import OpenAI from "openai";',
    "",
    `const client = new OpenAI({ apiKey: process.env.API_KEY, baseURL: "{{gatewayBase}}/${tool.id}" });`,
    "",
    `const answer = await client.chat.completions.create({ model: "${model}", messages: [{ role: "user", content: "Hello" }] });`,
    "console.log(answer.choices[0].message.content);",
    "",
    `const stream = await client.chat.completions.create({ model: "${model}", messages: [{ role: "user", content: "Hello" }], stream: true });`,
    'for await (const chunk of stream) process.stdout.write(chunk.choices[0]?.delta.content ?? "");',
    "```",
  ].join("\n\n");
}

function genericExample(tool: DocTool, words: DocsStrings): string {
  return [
    `## ${words.tool.example} {#example}`,
    words.tool.genericExample,
    "```sh",
    `curl -X ${tool.method} "{{gatewayBase}}/${tool.id}" \\`,
    '  -H "Authorization: Bearer $API_KEY" \\',
    '  -H "content-type: application/json" \\',
    "  -d '{}'",
    "```",
  ].join("\n\n");
}

/** `fragment` is the tool's own documentation (request, response, example), when there is one. */
export function toolPageMarkdown(tool: DocTool, fragment: string | null, currency: string, words: DocsStrings = DOCS_STRINGS.en): string {
  const f = words.tool.facts;
  const facts = [
    "| | |",
    "|---|---|",
    `| ${f.id} | \`${tool.id}\` |`,
    `| ${f.call} | \`${tool.method} {{gatewayBase}}/${tool.id}\` |`,
    `| ${f.price} | ${priceLabel(tool, currency, words)} — ${f.chargedNote} |`,
    `| ${f.rateLimit} | ${f.perMinute(tool.rateLimitPerMinute.toLocaleString("en-US"))} |`,
    `| ${f.access} | ${tool.requiresApproval ? words.tool.needsApproval : words.tool.open} |`,
    `| ${f.provider} | ${tool.builtin ? f.builtIn : f.upstream} |`,
    `| ${f.category} | ${tool.category} |`,
  ].join("\n");
  return [
    `# ${tool.name}`,
    tool.description,
    facts,
    words.tool.keyNote,
    words.tool.tryIt(tool.id),
    (fragment ?? (tool.models ? modelsSection(tool, tool.models, currency, words) : genericExample(tool, words))).replace(/\{\{toolId\}\}/g, tool.id),
  ].join("\n\n") + "\n";
}

export function toolsOverviewMarkdown(tools: DocTool[], currency: string, words: DocsStrings = DOCS_STRINGS.en): string {
  const rows = tools.map(
    (tool) =>
      `| [${tool.name}](${toolSlug(tool)}.md) | ${tool.description.replace(/\|/g, "\\|")} | ${priceLabel(tool, currency, words)} | ${tool.requiresApproval ? words.tool.needsApprovalShort : words.tool.openAccess} |`,
  );
  return [
    `# ${words.tool.overviewTitle}`,
    words.tool.overviewIntro,
    tools.length === 0 ? words.tool.noTools : [words.tool.overviewHeader, "|---|---|---|---|", ...rows].join("\n"),
  ].join("\n\n") + "\n";
}
