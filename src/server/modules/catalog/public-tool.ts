import path from "node:path";
import type { PublicModel, PublicTool } from "#shared/catalog";
import { formatMoney, parseMoney } from "#shared/money";
import { loadCatalog, type HttpHandlerConfig, type Tool } from "./catalog-file";

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
    freeQuota: tool.freeQuota ?? null,
    packages: tool.packages.map((pkg) => ({ ...pkg, price: money(pkg.price) })),
  };
}

const money = (price: string) => formatMoney(parseMoney(price));

function publicModels(models: NonNullable<HttpHandlerConfig["models"]>): PublicModel[] {
  return Object.entries(models).map(([id, model]) => ({ id, input: money(model.input), cachedInput: money(model.cachedInput ?? model.input), output: money(model.output) }));
}

/** The public catalog of the build's `TOOLS_CATALOG` (default as in src/server/config.ts), for the prerendered landing page. */
export function buildTimeCatalog(env: Record<string, string | undefined> = process.env): PublicTool[] {
  return loadCatalog(path.resolve(env.TOOLS_CATALOG || "./config/tools.json"), env).map(publicTool);
}
