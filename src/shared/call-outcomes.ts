import { GATEWAY_ERRORS, type GatewayErrorCode } from "./gateway";

/**
 * What became of a gateway call, as its row in the call log says: a closed set of stable codes.
 * A call the gateway refused or failed carries the code its caller got (GATEWAY_ERRORS); these
 * name the outcomes that code does not tell apart, or that end well.
 */
export const CALL_LOG_OUTCOMES = {
  served: "the tool answered with success and the call was charged",
  tool_rejected: "the tool answered with a client error (4xx), passed on as it was; not charged",
  replayed: "a retry with an Idempotency-Key got the first call's kept answer back; free",
  key_disabled: "the API key was disabled (the caller got invalid_key)",
  key_expired: "the API key had expired (the caller got invalid_key)",
  stream_cut: "the tool's streamed answer broke before its end; charged only what it had reported",
  caller_left: "the caller went away before its answer ended",
} as const;

export type CallOutcome = keyof typeof CALL_LOG_OUTCOMES | GatewayErrorCode;

/** Every outcome code a call log row may hold, with its meaning. */
export const CALL_OUTCOME_MEANINGS: Record<CallOutcome, string> = {
  ...CALL_LOG_OUTCOMES,
  ...(Object.fromEntries(Object.entries(GATEWAY_ERRORS).map(([code, { message }]) => [code, message])) as Record<GatewayErrorCode, string>),
};

export const CALL_OUTCOMES = Object.keys(CALL_OUTCOME_MEANINGS) as [CallOutcome, ...CallOutcome[]];

/** The classes of HTTP status the call log filters by. */
export const STATUS_CLASSES = ["2xx", "4xx", "5xx"] as const;
