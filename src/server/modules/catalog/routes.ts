import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { catalogResponseSchema } from "#shared/catalog";
import { publicTool } from "./public-tool";

const catalogRoutes: FastifyPluginAsyncZod = async (app) => {
  const tools = [...app.catalog.values()].map(publicTool);
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
