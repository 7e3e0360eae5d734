import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { catalogResponseSchema, type PublicTool } from "../../../shared/catalog";

const catalogRoutes: FastifyPluginAsyncZod = async (app) => {
  const tools: PublicTool[] = [...app.catalog.values()].map((tool) => ({
    id: tool.id,
    name: tool.name,
    description: tool.description,
    category: tool.category,
    price: tool.price,
    unit: tool.unit ?? null,
    requiresApproval: tool.requiresApproval,
    rateLimitPerMinute: tool.rateLimitPerMinute,
    method: tool.handler.type === "http" && tool.handler.method !== "ANY" ? tool.handler.method : "POST",
  }));
  app.get(
    "/tools",
    { schema: { tags: ["tools"], summary: "The public tool catalog with prices", response: { 200: catalogResponseSchema } } },
    async (_request, reply) => {
      reply.header("cache-control", "public, max-age=60");
      return { tools };
    },
  );
};

export default catalogRoutes;
