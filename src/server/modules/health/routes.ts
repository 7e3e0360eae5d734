import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { pingDatabase } from "../../db/client";

const healthResponse = z.object({
  status: z.enum(["ok", "degraded"]),
  database: z.object({ reachable: z.boolean(), kind: z.enum(["pglite", "postgres"]) }),
});

const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    "/health",
    { schema: { tags: ["system"], summary: "Liveness and database reachability", response: { 200: healthResponse, 503: healthResponse } } },
    async (_request, reply) => {
      const reachable = await pingDatabase(app.db);
      return reply
        .code(reachable ? 200 : 503)
        .header("cache-control", "no-store")
        .send({ status: reachable ? "ok" : "degraded", database: { reachable, kind: app.database.kind } });
    },
  );
};

export default healthRoutes;
