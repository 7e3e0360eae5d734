/** The Markdown of the tool pages, generated from the operator's catalog. */
import type { PublicTool } from "../../src/shared/catalog";

export interface DocTool extends PublicTool {
  /** The built-in handler's name, or null for a tool served by an upstream provider. */
  builtin: string | null;
}

export function toolSlug(tool: Pick<PublicTool, "id">): string {
  return `tools/${tool.id}`;
}

export function priceLabel(tool: Pick<PublicTool, "price" | "unit">, currency: string): string {
  return `${currency}${tool.price} per ${tool.unit ?? "call"}`;
}

function accessLabel(tool: DocTool): string {
  return tool.requiresApproval
    ? "Needs approval: [apply in the console](/console/apply), then call it with any of your keys."
    : "Open to every account.";
}

function genericExample(tool: DocTool): string {
  return [
    "## Example",
    "The request and response formats of this tool are defined by its provider; the body you send is passed on as it is.",
    "```sh",
    `curl -X ${tool.method} "{{gatewayBase}}/${tool.id}" \\`,
    '  -H "Authorization: Bearer $API_KEY" \\',
    '  -H "content-type: application/json" \\',
    "  -d '{}'",
    "```",
  ].join("\n\n");
}

/** `fragment` is the tool's own documentation (request, response, example), when there is one. */
export function toolPageMarkdown(tool: DocTool, fragment: string | null, currency: string): string {
  const facts = [
    "| | |",
    "|---|---|",
    `| Tool id | \`${tool.id}\` |`,
    `| Call | \`${tool.method} {{gatewayBase}}/${tool.id}\` |`,
    `| Price | ${priceLabel(tool, currency)} — only successful calls are charged |`,
    `| Rate limit | ${tool.rateLimitPerMinute.toLocaleString("en-US")} calls per minute per API key |`,
    `| Access | ${accessLabel(tool)} |`,
    `| Provided by | ${tool.builtin ? "{{siteName}} (built in)" : "an upstream provider"} |`,
    `| Category | ${tool.category} |`,
  ].join("\n");
  return [
    `# ${tool.name}`,
    tool.description,
    facts,
    "Send your API key as `Authorization: Bearer <API key>` ([authentication](../authentication.md#api-keys)). " +
      "A refused or failed call answers with `{\"error\": {\"code\", \"message\"}}` and is free; see [gateway errors](../errors.md#gateway-errors).",
    (fragment ?? genericExample(tool)).replace(/\{\{toolId\}\}/g, tool.id),
  ].join("\n\n") + "\n";
}

export function toolsOverviewMarkdown(tools: DocTool[], currency: string): string {
  const rows = tools.map(
    (tool) =>
      `| [${tool.name}](${toolSlug(tool)}.md) | ${tool.description.replace(/\|/g, "\\|")} | ${priceLabel(tool, currency)} | ${tool.requiresApproval ? "needs approval" : "open"} |`,
  );
  return [
    "# Tools",
    "Every tool is called at `{{gatewayBase}}/<tool id>` with your API key, with the method its page shows (`POST` for most). Prices are in the site currency; only successful calls are charged.",
    tools.length === 0
      ? "No tools are offered yet."
      : ["| Tool | What it does | Price | Access |", "|---|---|---|---|", ...rows].join("\n"),
  ].join("\n\n") + "\n";
}
