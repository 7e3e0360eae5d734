/** The wire shape of every API error: a stable machine code and a message a user can read. */
export interface ApiErrorBody {
  code: string;
  message: string;
}

export const ERROR_CODES = {
  badRequest: "bad_request",
  validation: "validation_failed",
  unauthorized: "unauthorized",
  forbidden: "forbidden",
  notFound: "not_found",
  conflict: "conflict",
  requestTimeout: "request_timeout",
  bodyTooLarge: "body_too_large",
  uriTooLong: "uri_too_long",
  unsupportedMediaType: "unsupported_media_type",
  headersTooLarge: "headers_too_large",
  idempotencyInProgress: "idempotency_in_progress",
  idempotencyMismatch: "idempotency_key_reused",
  rateLimited: "rate_limited",
  internal: "internal_error",
  unavailable: "service_unavailable",
} as const;

export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES] | (string & {});
