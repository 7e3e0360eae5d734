import type { FastifyInstance } from "fastify";

/**
 * Bodies reach the gateway unread, as the request stream: they are read only after the call is
 * admitted, whole for a built-in tool, streamed to an upstream (each with its limit, request-body.ts).
 */
export function passBodiesThrough(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  // Any content type (or none): a pattern that matches every one, because Fastify caches the parser
  // it finds by pattern for each content type, and looks the catch-all "*" up anew on every request.
  app.addContentTypeParser(/^/, (_request, payload, done) => done(null, payload));
}
