import type { SpendLimitPeriod } from "./spend-period";

/** The gateway's error codes: JSON `{error: {code, message}}` with these codes and statuses. */
export const GATEWAY_ERRORS = {
  invalid_key: { status: 401, message: "the API key is missing, unknown, disabled or expired" },
  insufficient_balance: { status: 402, message: "the balance does not cover this call: top up to continue" },
  spend_limit_reached: { status: 402, message: "this API key has reached its spend limit" },
  prepaid_exhausted: {
    status: 402,
    message: "the free quota and packages left for this tool do not cover this call, and this API key is set to stop rather than pay from the balance: buy a package, or let the key use the balance in the console",
  },
  account_disabled: { status: 403, message: "the account this API key belongs to has been disabled by the site's operator: contact them" },
  ip_not_allowed: { status: 403, message: "this API key may not be used from this IP address" },
  tool_not_allowed: { status: 403, message: "this API key may not call this tool" },
  tool_not_approved: { status: 403, message: "this tool needs an approved application: apply in the console" },
  unknown_tool: { status: 404, message: "there is no tool with this id" },
  unknown_path: { status: 404, message: "this tool does not serve this path" },
  unknown_model: { status: 400, message: "this tool does not serve the model the request names" },
  idempotency_in_progress: { status: 409, message: "a call with this Idempotency-Key is still running, or was charged but its answer could not be kept for replay" },
  idempotency_stream_not_replayable: { status: 409, message: "the call with this Idempotency-Key streamed its answer and was charged; a stream cannot be replayed, so it is not run again" },
  idempotency_key_reused: { status: 422, message: "this Idempotency-Key was used for a different call" },
  body_too_large: { status: 413, message: "the request body is larger than this tool accepts" },
  bad_request: { status: 400, message: "the request cannot be read as sent: the message says why" },
  bad_path: { status: 400, message: "the path or query after the tool id is not allowed" },
  invalid_idempotency_key: { status: 400, message: "Idempotency-Key must be 8 to 128 letters, digits, '-' or '_'" },
  request_timeout: { status: 408, message: "the request did not arrive in time" },
  uri_too_long: { status: 414, message: "the request's path is too long" },
  headers_too_large: { status: 431, message: "the request's headers are too large" },
  rate_limited: { status: 429, message: "too many calls with this API key: slow down" },
  upstream_failed: { status: 502, message: "the tool failed; the call was not charged" },
  upstream_timeout: { status: 504, message: "the tool did not answer in time; the call was not charged" },
  internal_error: { status: 500, message: "server internal error; the call was not charged" },
  server_busy: { status: 503, message: "the server is receiving too many request bodies at once; the call was not charged" },
} as const;

export type GatewayErrorCode = keyof typeof GATEWAY_ERRORS;

/**
 * What a refused call needed: a tool that runs outside holds its price first ("needs ¥0.01 held");
 * a built-in tool holds nothing and is charged once it has answered ("costs ¥0.01"), as the billing
 * docs say, so its refusal names the cost.
 */
const needed = (amount: string, cost: boolean) => (cost ? `costs ${amount}` : `needs ${amount} held`);

/**
 * `spend_limit_reached` for a call whose hold (or, for a built-in tool, cost) did not fit in what its
 * key had left (amounts as decimal strings with the currency symbol): why, in figures, rather than
 * only that it was refused.
 */
export const spendLimitHoldMessage = (held: string, left: string, period: SpendLimitPeriod = "lifetime", cost = false) =>
  `this call ${needed(held, cost)} and this API key has ${left} left of its spend limit: raise the limit in the console${SPEND_LIMIT_RENEWS[period]}`;

/** When a key's spend limit starts afresh, as a refusal tells it: a lifetime limit never does, so it says nothing. */
const SPEND_LIMIT_RENEWS: Record<SpendLimitPeriod, string> = {
  lifetime: "",
  day: ", or wait until it renews at midnight, Beijing time",
  month: ", or wait until it renews on the 1st of next month, Beijing time",
};

/**
 * `insufficient_balance` for a call of a tool without plans: what it needed held. Not the balance:
 * an API key's holder may not be the account's owner. An LLM call holds what its longest answer
 * would cost, so asking for fewer tokens may let it through.
 */
export const insufficientBalanceHoldMessage = (held: string, llm: boolean, cost = false) =>
  `this call ${needed(held, cost)}, more than the balance has: top up to continue${llm ? ", or ask for fewer tokens (max_tokens or max_completion_tokens): an LLM call holds what its longest answer would cost" : ""}`;

/**
 * `ip_not_allowed` with the address the gateway saw: behind NAT or a proxy it is not the one a
 * developer would guess, and it is the one the key's allowlist must name.
 */
export function ipNotAllowedMessage(ip: string): string {
  const shown = /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(ip) ? ip.slice(7) : ip;
  // A loopback address is a proxy's in front of the gateway, not the caller's: allowing it would let every caller through.
  if (/^127\.|^::1$/.test(shown)) return `this API key may not be used from this IP address (the gateway sees ${shown}, the address of a proxy in front of it)`;
  return `this API key may not be used from this IP address (${shown}): add it to the key's IP allowlist in the console`;
}

/** Response header with the cost of the call, a decimal string in the site currency. */
export const COST_HEADER = "x-tollgate-cost";

/**
 * Response header of a tool with a free quota or packages: the units left for the caller in its
 * free quota and packages after the call (for a streamed answer, after its hold).
 */
export const QUOTA_HEADER = "x-quota-remaining";
