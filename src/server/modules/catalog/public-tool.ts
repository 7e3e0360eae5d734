import type { PublicModel, PublicTiers, PublicTool } from "#shared/catalog";
import { tierExampleUnits, tieredCost, type Tiers } from "#shared/tiers";
import { formatMoney, parseMoney } from "#shared/money";
import type { HttpHandlerConfig, Tool } from "./catalog-file";

/** One tool as GET /api/v1/tools shows it. */
export function publicTool(tool: Tool): PublicTool {
  return {
    id: tool.id,
    name: tool.name,
    description: tool.description,
    category: tool.category,
    price: tool.price,
    unit: tool.unit ?? null,
    requiresApproval: tool.requiresApproval,
    rateLimitPerMinute: tool.rateLimitPerMinute,
    method: tool.handler.type === "http" && tool.handler.method !== "ANY" ? tool.handler.method : "POST",
    translations: tool.translations,
    models: tool.handler.type === "http" && tool.handler.protocol === "openai" ? publicModels(tool.handler.models ?? {}) : null,
    example: tool.example ?? openAiExample(tool),
    freeQuota: tool.freeQuota ?? null,
    packages: tool.packages.map((pkg) => ({ ...pkg, price: money(pkg.price) })),
    tiers: tool.tiers ? publicTiers(tool.tiers) : null,
  };
}

function publicTiers(tiers: Tiers): PublicTiers {
  const units = tierExampleUnits(tiers);
  return {
    mode: tiers.mode,
    bands: tiers.bands.map((band) => ({ upTo: band.upTo, price: formatMoney(band.price) })),
    example: { units, cost: formatMoney(tieredCost(tiers, 0, units)) },
  };
}

/** An OpenAI-compatible tool with no example of its own: a chat completion with its first model. */
function openAiExample(tool: Tool): PublicTool["example"] {
  if (tool.handler.type !== "http" || tool.handler.protocol !== "openai") return null;
  const [model] = Object.keys(tool.handler.models ?? {});
  if (!model) return null;
  return { path: "/chat/completions", contentType: "application/json", body: JSON.stringify({ model, messages: [{ role: "user", content: "Say hello" }] }, null, 2) };
}

const money = (price: string) => formatMoney(parseMoney(price));

function publicModels(models: NonNullable<HttpHandlerConfig["models"]>): PublicModel[] {
  return Object.entries(models).map(([id, model]) => ({ id, input: money(model.input), cachedInput: money(model.cachedInput ?? model.input), output: money(model.output) }));
}
