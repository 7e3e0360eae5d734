import { ERROR_CODES } from "#shared/errors";
import { GATEWAY_ERRORS, type GatewayErrorCode } from "#shared/gateway";

/**
 * The two error shapes (docs/site/errors.md) for errors no route raised itself (the framework's,
 * the body parsers', an unknown route): the console API's `{code, message}` and the gateway's
 * `{error: {code, message}}`. `message` is used when it is fit for the caller, else the status's own.
 */

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

export function gatewayErrorBody(status: number, message?: string): object {
  const code: GatewayErrorCode = status >= 500 ? "internal_error" : status === 404 ? "unknown_tool" : (STATUS_CODES[status] ?? "bad_request");
  const fallback = code === "unknown_tool" ? GATEWAY_NOT_FOUND : GATEWAY_ERRORS[code].message;
  return { error: { code, message: status >= 500 ? fallback : (message ?? fallback) } };
}

export function consoleErrorBody(status: number, message?: string): object {
  if (status >= 500) return { code: ERROR_CODES.internal, message: "server internal error" };
  if (status === 404) return { code: ERROR_CODES.notFound, message: message ?? CONSOLE_NOT_FOUND };
  if (status === 429) return { code: ERROR_CODES.rateLimited, message: "too many requests, please try later" };
  const code = CONSOLE_CODES[status] ?? ERROR_CODES.badRequest;
  return { code, message: message ?? GATEWAY_ERRORS[STATUS_CODES[status] ?? "bad_request"].message };
}

/**
 * The body of an error raised before any route is found (the router, Node's HTTP parser, a catch-all
 * route), in the shape of the family its URL names: the gateway's under /v1, the console's elsewhere.
 */
export function bodyForUrl(url: string, status: number, message?: string): object {
  return /^\/v1(?:[/?]|$)/.test(url) ? gatewayErrorBody(status, message) : consoleErrorBody(status, message);
}
