import type { Socket } from "node:net";
import type { ConnectionError, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { ERROR_CODES } from "#shared/errors";
import { GATEWAY_ERRORS, type GatewayErrorCode } from "#shared/gateway";
import { AppError } from "../errors";

/**
 * The two error shapes (docs/site/errors.md): the gateway under /v1 answers `{error: {code,
 * message}}`, everything else `{code, message}`. Errors raised before any route runs (the router,
 * the body parsers, Node's HTTP parser) are given the shape of the family their URL belongs to.
 */
export function isGatewayUrl(url: string): boolean {
  return /^\/v1(?:[/?]|$)/.test(url);
}

const CONSOLE_NOT_FOUND = "server resource does not exist";
const GATEWAY_NOT_FOUND = "no such gateway route: call /v1/tools/{toolId}";

/** Codes for the statuses the framework and the HTTP parser answer with; both families use the same. */
const STATUS_CODES: Record<number, GatewayErrorCode> = {
  400: "bad_request",
  408: "request_timeout",
  413: "body_too_large",
  414: "uri_too_long",
  431: "headers_too_large",
  429: "rate_limited",
};

const CONSOLE_CODES: Record<number, string> = {
  400: ERROR_CODES.badRequest,
  404: ERROR_CODES.notFound,
  408: ERROR_CODES.requestTimeout,
  413: ERROR_CODES.bodyTooLarge,
  414: ERROR_CODES.uriTooLong,
  415: ERROR_CODES.unsupportedMediaType,
  429: ERROR_CODES.rateLimited,
  431: ERROR_CODES.headersTooLarge,
};

/** The body for an error not raised by a route: `message` when it is fit for the caller, else the status's own. */
export function errorBodyFor(url: string, status: number, message?: string): object {
  if (isGatewayUrl(url)) {
    const code: GatewayErrorCode = status >= 500 ? "internal_error" : status === 404 ? "unknown_tool" : (STATUS_CODES[status] ?? "bad_request");
    const fallback = code === "unknown_tool" ? GATEWAY_NOT_FOUND : GATEWAY_ERRORS[code].message;
    return { error: { code, message: status >= 500 ? fallback : (message ?? fallback) } };
  }
  if (status >= 500) return { code: ERROR_CODES.internal, message: "server internal error" };
  if (status === 404) return { code: ERROR_CODES.notFound, message: message ?? CONSOLE_NOT_FOUND };
  if (status === 429) return { code: ERROR_CODES.rateLimited, message: "too many requests, please try later" };
  const code = CONSOLE_CODES[status] ?? ERROR_CODES.badRequest;
  return { code, message: message ?? GATEWAY_ERRORS[STATUS_CODES[status] ?? "bad_request"].message };
}

/** Router errors raised before a route is found: a malformed percent-encoding (400), a path parameter too long (414). */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const status = error.statusCode ?? 400;
  const message = status === 414 ? undefined : "the request's path holds a malformed percent-encoding";
  if (status >= 500) request.log.error({ err: error }, "request failed");
  return reply.code(status).header("cache-control", "no-store").send(errorBodyFor(request.url, status, message));
}

const HTTP_STATUS_TEXT: Record<number, string> = { 400: "Bad Request", 408: "Request Timeout", 431: "Request Header Fields Too Large" };

/** What Node's HTTP parser refused: answered on the socket, since no request exists, in the shape the request line asks for. */
export function clientErrorHandler(error: ConnectionError, socket: Socket) {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const status = error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : error.code === "HPE_HEADER_OVERFLOW" ? 431 : 400;
  const raw: unknown = error.rawPacket;
  const requestLine = /^[A-Z]+ (\S+)/.exec(Buffer.isBuffer(raw) ? raw.toString("latin1", 0, 256) : "");
  const body = JSON.stringify(errorBodyFor(requestLine?.[1] ?? "/", status, status === 400 ? "the request is not valid HTTP/1.1" : undefined));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${HTTP_STATUS_TEXT[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/** One error handler for the whole API: JSON `{code, message}`, 5xx internals never leave the server. */
export default fp(
  async function errorsPlugin(app: FastifyInstance) {
    app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
      if (error instanceof AppError) {
        return reply.code(error.statusCode).headers(error.headers).send({ code: error.code, message: error.message });
      }
      if (hasZodFastifySchemaValidationErrors(error)) {
        const first = error.validation[0];
        const field = first?.instancePath.replace(/^\//, "").replace(/\//g, ".");
        const detail = first?.message ?? "invalid request";
        return reply
          .code(400)
          .send({ code: ERROR_CODES.validation, message: field ? `${field}: ${detail}` : detail });
      }
      const status = error.statusCode ?? 500;
      if (status >= 500) request.log.error({ err: error }, "request failed");
      return reply.code(status).send(errorBodyFor(request.url, status, error.message));
    });
    // Unknown routes and methods; GET and HEAD of a page path are the web app's (plugins/web.ts).
    app.setNotFoundHandler((request, reply) => reply.code(404).send(errorBodyFor(request.url, 404)));
  },
  { name: "errors" },
);
