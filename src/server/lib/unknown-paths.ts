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

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/**
 * The methods the app's routes serve at `url` (a request's, query and all), in the form of an
 * `Allow` header's list; empty when no route serves the path. The catch-all routes above (a lone
 * `*` parameter) serve no path: they only hand it to the not-found handler.
 */
export function methodsServed(app: FastifyInstance, url: string): string[] {
  const path = url.split("?", 1)[0]!;
  const served: string[] = METHODS.filter((method) => {
    const route = app.findRoute({ method, url: path });
    return route !== null && !(Object.keys(route.params).length === 1 && "*" in route.params);
  });
  return served.includes("GET") ? [...served, "HEAD"] : served;
}
