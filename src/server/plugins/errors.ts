import type { Socket } from "node:net";
import type { ConnectionError, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { ERROR_CODES } from "#shared/errors";
import { AppError } from "../errors";
import { bodyForUrl, consoleErrorBody } from "../lib/error-bodies";
import { methodsServed } from "../lib/unknown-paths";
import { validationMessage } from "../lib/validation-message";

/*
 * Errors raised before any route is found (the router, Node's HTTP parser) belong to no scope, so
 * they alone are given the shape of the family their URL names (bodyForUrl). Everything later is
 * answered by its scope's handlers (app.ts).
 */

/** Router errors raised before a route is found: a malformed percent-encoding (400), a path parameter too long (414). */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const status = error.statusCode ?? 400;
  const message = status === 414 ? undefined : "the request's path holds a malformed percent-encoding";
  if (status >= 500) request.log.error({ err: error }, "request failed");
  return reply.code(status).header("cache-control", "no-store").send(bodyForUrl(request.url, status, message));
}

const HTTP_STATUS_TEXT: Record<number, string> = { 400: "Bad Request", 408: "Request Timeout", 431: "Request Header Fields Too Large" };

/** What Node's HTTP parser refused: answered on the socket, since no request exists, in the shape the request line asks for. */
export function clientErrorHandler(error: ConnectionError, socket: Socket) {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const status = error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : error.code === "HPE_HEADER_OVERFLOW" ? 431 : 400;
  const raw: unknown = error.rawPacket;
  const requestLine = /^[A-Z]+ (\S+)/.exec(Buffer.isBuffer(raw) ? raw.toString("latin1", 0, 256) : "");
  const body = JSON.stringify(bodyForUrl(requestLine?.[1] ?? "/", status, status === 400 ? "the request is not valid HTTP/1.1" : undefined));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${HTTP_STATUS_TEXT[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/** An unknown route or method, in the console's shape: under /api and wherever no route family claims the path. */
export function consoleNotFound(_request: FastifyRequest, reply: FastifyReply) {
  return reply.code(404).send(consoleErrorBody(404));
}

/**
 * `/api/v1/tools/<id>`: a tool called under the console API's prefix, where `user-info` lives (SPEC.md §7),
 * rather than at the gateway's `/v1/tools/<id>`: the 404 says where the tools are. A path under
 * `user-info` itself is a mistyped console route, not a tool.
 */
const TOOL_UNDER_API = /^\/api(\/v1\/tools\/(?!user-info(?:[/?]|$))[^?]+)/;

/** The console API's unknown route: 405 with `Allow` for a path it serves under other methods, else 404. */
export function consoleApiNotFound(request: FastifyRequest, reply: FastifyReply) {
  const allowed = methodsServed(request.server, request.url);
  const tool = allowed.length === 0 ? TOOL_UNDER_API.exec(request.url) : null;
  if (tool) return reply.code(404).send(consoleErrorBody(404, `server resource does not exist: the tools are called at /v1/tools/<tool id> (here ${tool[1]}), without /api`));
  if (allowed.length === 0) return consoleNotFound(request, reply);
  return reply
    .code(405)
    .header("allow", allowed.join(", "))
    .send({ code: ERROR_CODES.methodNotAllowed, message: `this path does not take ${request.method}: it takes ${allowed.join(", ")}` });
}

/**
 * The app's error handler, in the console API's `{code, message}` shape; 5xx internals never
 * leave the server. Registered at the root, so every scope but the gateway's (which answers in
 * its own shape) uses it.
 */
export default fp(
  async function errorsPlugin(app: FastifyInstance) {
    app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
      if (error instanceof AppError) {
        return reply.code(error.statusCode).headers(error.headers).send({ code: error.code, message: error.message });
      }
      if (hasZodFastifySchemaValidationErrors(error)) {
        const message = validationMessage(error.validation[0], error.validationContext, request.routeOptions.schema);
        return reply.code(400).send({ code: ERROR_CODES.validation, message });
      }
      const status = error.statusCode ?? 500;
      if (status >= 500) request.log.error({ err: error }, "request failed");
      return reply.code(status).send(consoleErrorBody(status, error.message));
    });
  },
  { name: "errors" },
);
