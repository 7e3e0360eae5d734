import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { bodyForUrl } from "./error-bodies";

/**
 * Makes `notFound` the answer to every path of `scope` (a route family's prefix) that no route
 * of it serves. The site's pages answer GET and HEAD of any path (plugins/web.ts), so those
 * methods are routed here too and handed to the scope's not-found handler, with its hooks.
 */
export function answerUnknownPaths(scope: FastifyInstance, notFound: (request: FastifyRequest, reply: FastifyReply) => unknown): void {
  scope.setNotFoundHandler(notFound);
  scope.route({
    method: ["GET", "HEAD"],
    url: "/*",
    schema: { hide: true },
    handler: (request, reply) => {
      // The router answers a path parameter too long with 414, but only where no route of the method
      // catches the path: under GET and HEAD this catch-all does, and a 404 would tell the caller the
      // resource is missing when its id was only too long. Answered as PATCH or POST are.
      if (tooLongForARoute(request)) return reply.code(414).header("cache-control", "no-store").send(bodyForUrl(request.url, 414));
      return reply.callNotFound();
    },
  });
}

/** Whether the request's path would reach a route (not a catch-all) if its segments longer than the router takes were short. */
function tooLongForARoute(request: FastifyRequest): boolean {
  const max = request.server.initialConfig.maxParamLength ?? 100;
  const segments = request.url.split("?", 1)[0]!.split("/");
  if (!segments.some((segment) => segment.length > max)) return false;
  const shortened = segments.map((segment) => (segment.length > max ? "x" : segment)).join("/");
  return methodsServed(request.server, shortened).length > 0;
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
