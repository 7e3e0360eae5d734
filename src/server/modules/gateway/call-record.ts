import type { FastifyError } from "fastify";
import { GATEWAY_ERRORS } from "#shared/gateway";
import type { CallOutcome } from "#shared/calls";
import type { StoredResponse } from "../../lib/idempotency-store";
import type { CallLogWriter, CallTrace } from "../calls/index";
import { apiKeyStatus } from "../keys/index";
import { succeeded, type GatewayCall, type GatewayResult } from "./gateway";
import { GatewayError } from "./gateway-error";
import { isStreamed, upstreamFault, upstreamTimedOut } from "./handlers/types";

/**
 * How each gateway call ends in the call log (src/server/modules/calls): what the caller got, as
 * one of the stable outcome codes (src/shared/calls.ts), and what it cost. Nothing here is awaited
 * on the call's path: a row is queued once its call has ended.
 */

/** Where a call goes once it has ended: the call log, and the metrics (routes.ts). */
export type EndedCalls = Pick<CallLogWriter, "push">;

/** The request's body size: as read, when it was read whole; else as declared. */
function bytesIn(call: GatewayCall | undefined, contentLength: string | undefined): number {
  if (call && Buffer.isBuffer(call.request.body)) return call.request.body.length;
  const declared = Number(contentLength);
  return Number.isSafeInteger(declared) && declared >= 0 ? declared : 0;
}

/**
 * A streamed answer that ended: served if the tool's body ended and the caller took it all; else
 * who broke it (the caller leaving, a timeout of the tool's, or the tool).
 */
function streamOutcome(trace: CallTrace, call: GatewayCall): CallOutcome {
  const body = trace.upstreamBody;
  if (body && !body.readableEnded) {
    if (call.callerGone()) return "caller_left";
    const timedOut = body.errored !== null && upstreamTimedOut(body.errored);
    trace.upstreamFault = timedOut ? "timeout" : upstreamFault(body.errored);
    return timedOut ? "upstream_timeout" : "stream_cut";
  }
  return call.callerGone() ? "caller_left" : "served";
}

/** The tool's answer, passed on: queued now, or for a stream once it has ended and its cost is known. */
export function recordAnswer(writer: EndedCalls, trace: CallTrace, call: GatewayCall, result: GatewayResult, contentLength: string | undefined): void {
  const { response } = result;
  trace.httpStatus = response.status;
  trace.bytesIn = bytesIn(call, contentLength);
  if (!isStreamed(response)) {
    trace.outcome = succeeded(response) ? "served" : "tool_rejected";
    trace.bytesOut = Buffer.byteLength(response.body);
    // The gateway wrote the units the call used, and those its lots paid, once its charge stood.
    trace.amount = result.cost as bigint;
    trace.ended();
    writer.push(trace);
    return;
  }
  // The cost promise only resolves (decision 013): the stream's settlement reports its own failures.
  void (result.cost as Promise<bigint>).then((cost) => {
    trace.amount = cost;
    trace.outcome = streamOutcome(trace, call);
    trace.ended();
    writer.push(trace);
  });
}

/** A retry with an Idempotency-Key answered with the first call's kept answer. */
export function recordReplay(writer: EndedCalls, trace: CallTrace, call: GatewayCall, stored: StoredResponse, contentLength: string | undefined): void {
  trace.outcome = "replayed";
  trace.httpStatus = stored.statusCode;
  trace.bytesIn = bytesIn(call, contentLength);
  trace.bytesOut = Buffer.byteLength(stored.body, "base64");
  trace.ended();
  writer.push(trace);
}

/**
 * Fills in a call refused or failed, as the caller was answered (answerErrorsAsGateway); the route
 * queues it once its key is known. A refused key
 * says why (disabled, expired) though its caller only learns invalid_key; a failure of a call
 * whose caller had gone is the caller leaving. A call that threw cost nothing.
 */
export function traceFailure(trace: CallTrace, call: GatewayCall | undefined, error: unknown, contentLength: string | undefined): void {
  const gatewayError = error instanceof GatewayError ? error : undefined;
  const status = gatewayError?.status ?? (error as FastifyError).statusCode ?? 500;
  const code = gatewayError?.code ?? (status >= 500 ? "internal_error" : "bad_request");
  const message = gatewayError?.message ?? (status >= 500 ? GATEWAY_ERRORS.internal_error.message : (error as Error).message);
  let outcome: CallOutcome = code;
  if (code === "invalid_key" && trace.caller) outcome = apiKeyStatus(trace.caller.key, trace.receivedAt) === "expired" ? "key_expired" : "key_disabled";
  else if (code === "upstream_failed" && call?.callerGone()) outcome = "caller_left";
  trace.refused(outcome, { code, message, status, bodyBytes: Buffer.byteLength(JSON.stringify({ error: { code, message } })) });
  trace.bytesIn = bytesIn(call, contentLength);
  trace.ended();
}
