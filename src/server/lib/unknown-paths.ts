import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

/**
 * Makes `notFound` the answer to every path of `scope` (a route family's prefix) that no route
 * of it serves. The site's pages answer GET and HEAD of any path (plugins/web.ts), so those
 * methods are routed here too and handed to the scope's not-found handler, with its hooks.
 */
export function answerUnknownPaths(scope: FastifyInstance, notFound: (request: FastifyRequest, reply: FastifyReply) => unknown): void {
  scope.setNotFoundHandler(notFound);
  scope.route({ method: ["GET", "HEAD"], url: "/*", schema: { hide: true }, handler: (_request, reply) => reply.callNotFound() });
}
