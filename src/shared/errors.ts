/** The wire shape of every API error: a stable machine code and a message a user can read. */
export interface ApiErrorBody {
  code: string;
  message: string;
}

/**
 * Every code the console API answers with, its status and what it means for the person reading
 * the docs (docs/site/errors.md is generated from this list). A code not listed here cannot be
 * thrown: `AppError` takes only these.
 */
export const API_ERRORS = {
  bad_request: { status: 400, meaning: "The request cannot be served as sent; the message says why." },
  validation_failed: {
    status: 400,
    meaning:
      "A field or query parameter is missing or invalid, or the request holds one the endpoint does not take; the message names it, as in `name: too long`, `the request body does not take the field nmae` for a misspelt `name`, or `the query string does not take the parameter tool` where the endpoint takes `toolId`.",
  },
  unauthorized: { status: 401, meaning: "You are not signed in, or your session has expired. Sign in again." },
  forbidden: { status: 403, meaning: "You may not do this." },
  not_found: { status: 404, meaning: "The resource does not exist, or it is not yours." },
  method_not_allowed: { status: 405, meaning: "The path exists but does not take this method; the `Allow` header lists the methods it takes." },
  conflict: { status: 409, meaning: "The request conflicts with the current state." },
  request_timeout: { status: 408, meaning: "The request did not arrive in time." },
  body_too_large: { status: 413, meaning: "The request body is larger than 1 MB." },
  uri_too_long: { status: 414, meaning: "The request's path is too long." },
  unsupported_media_type: { status: 415, meaning: "Send JSON with `content-type: application/json`." },
  headers_too_large: { status: 431, meaning: "The request's headers are too large." },
  idempotency_in_progress: {
    status: 409,
    meaning:
      "A request with the same `Idempotency-Key` is still running. Retry shortly. If it persists, the first request succeeded but its answer could not be kept for replay: check the result (for a gateway call, its request id in billing details) before sending the request again with a new key. See [idempotency](billing.md#idempotency).",
  },
  idempotency_key_reused: { status: 422, meaning: "The `Idempotency-Key` was already used for a different request. Use a new key." },
  invalid_idempotency_key: { status: 400, meaning: "The `Idempotency-Key` header is not 8 to 128 letters, digits, `-` or `_`, as the gateway also requires. Send one that is." },
  bad_path: {
    status: 400,
    meaning:
      "A try's path or query after the tool id is one the gateway would refuse with its own `bad_path`: a `.` or `..` segment in any encoding, a doubled slash, or a character that must be percent-encoded. Nothing was called or charged.",
  },
  rate_limited: { status: 429, meaning: "Too many requests. Wait the seconds the `Retry-After` header gives." },
  internal_error: { status: 500, meaning: "Something went wrong on our side. Retry later; contact us with the request id if it persists." },
  service_unavailable: { status: 503, meaning: "The service is temporarily unavailable. Retry later." },
  invalid_phone: { status: 400, meaning: "The phone number is not a valid mainland China mobile number: 11 digits starting with 1 and a digit 3 to 9." },
  invalid_code: { status: 400, meaning: "The verification code is wrong, has expired or was already used, or was asked for in another browser. Ask for a new one." },
  account_disabled: { status: 403, meaning: "This account has been disabled by the site's operator. Contact them at the address on the site." },
  login_limited: { status: 429, meaning: "Too many wrong codes from your network. Wait the seconds the `Retry-After` header gives." },
  sms_send_failed: { status: 502, meaning: "The text message could not be sent. Try again later." },
  captcha_unavailable: { status: 503, meaning: "The captcha service cannot be reached. Try again later." },
  api_key_limit_reached: { status: 400, meaning: "You already have the most API keys allowed. Delete one you no longer use." },
  redemption_code_unknown: { status: 400, meaning: "The redemption code does not exist. Check it and try again." },
  redemption_code_used: { status: 400, meaning: "The redemption code has already been used." },
  redemption_code_expired: { status: 400, meaning: "The redemption code has expired." },
  redemption_code_void: { status: 400, meaning: "The redemption code was withdrawn by the site's operator. Ask whoever sold it to you for another." },
  payment_method_unavailable: { status: 400, meaning: "The payment method is not offered on this site." },
  payment_provider_failed: { status: 502, meaning: "The payment provider is not available right now. Try again later." },
  tool_not_applicable: { status: 400, meaning: "The tool does not exist, or it needs no approval: every API key may call it." },
  application_already_pending: { status: 400, meaning: "You already have an application for this tool under review. Wait for its decision." },
  tool_access_already_granted: { status: 400, meaning: "You already have access to this tool." },
  insufficient_balance: { status: 402, meaning: "The balance does not cover this purchase. Top up, then buy again." },
  unknown_package: { status: 404, meaning: "The tool sells no package with this id. The tool's page lists its packages." },
} as const satisfies Record<string, { status: number; meaning: string }>;

export type ErrorCode = keyof typeof API_ERRORS;

/** Names for the general codes, as the server's code uses them. */
export const ERROR_CODES = {
  badRequest: "bad_request",
  validation: "validation_failed",
  unauthorized: "unauthorized",
  forbidden: "forbidden",
  notFound: "not_found",
  methodNotAllowed: "method_not_allowed",
  conflict: "conflict",
  requestTimeout: "request_timeout",
  bodyTooLarge: "body_too_large",
  uriTooLong: "uri_too_long",
  unsupportedMediaType: "unsupported_media_type",
  headersTooLarge: "headers_too_large",
  idempotencyInProgress: "idempotency_in_progress",
  idempotencyMismatch: "idempotency_key_reused",
  invalidIdempotencyKey: "invalid_idempotency_key",
  rateLimited: "rate_limited",
  internal: "internal_error",
  unavailable: "service_unavailable",
} as const satisfies Record<string, ErrorCode>;
