import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { loadCatalog, type Tool } from "./catalog-file";

declare module "fastify" {
  interface FastifyInstance {
    /** The operator's tools by id, loaded and validated once at start-up. */
    catalog: ReadonlyMap<string, Tool>;
  }
}

export default fp(
  async function catalogPlugin(app: FastifyInstance) {
    const tools = loadCatalog(app.config.toolsCatalog);
    app.decorate("catalog", new Map(tools.map((tool) => [tool.id, tool])));
  },
  { name: "catalog", dependencies: ["config"] },
);
