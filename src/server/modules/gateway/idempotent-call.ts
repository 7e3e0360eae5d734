import type { FastifyInstance, FastifyRequest } from "fastify";
import type { StoredResponse } from "../../lib/idempotency-store";
import { idempotencyKeyFrom, startKeyedRequest, type IdempotencyRefusals, type KeyedRequest } from "../../lib/idempotent-request";
import { succeeded, type Gateway, type GatewayCall, type GatewayResult, type Payer } from "./gateway";
import { GatewayError } from "./gateway-error";
import { isStreamed } from "./handlers/types";
import { resolveUnansweredCall } from "../ledger/index";
import { readWhole } from "./request-body";

/** What a retry of a charged streamed call gets in place of a replay. */
const STREAM_NOT_REPLAYABLE: StoredResponse = (() => {
  const error = new GatewayError("idempotency_stream_not_replayable");
  return { statusCode: error.status, contentType: "application/json; charset=utf-8", body: Buffer.from(JSON.stringify(error.toJSON())).toString("base64") };
})();

/** The gateway's refusals, in its `{error: {code, message}}` shape. */
const GATEWAY_REFUSALS: IdempotencyRefusals = {
  invalidKey: () => new GatewayError("invalid_idempotency_key"),
  reused: () => new GatewayError("idempotency_key_reused"),
  inProgress: () => new GatewayError("idempotency_in_progress"),
};

export type IdempotentOutcome = { ran: GatewayResult } | { replay: StoredResponse };

/**
 * An admitted call with an `Idempotency-Key`, claimed per API key through the app's one
 * Idempotency-Key store: a repeat gets the first charged answer back, free; a call that was not
 * charged frees the key. An answer is kept before it is sent, so a claim left without one by a
 * process that is gone (its lease ran out; or past the abandoned-call window, whoever holds it)
 * was never answered: its call is refunded and the retry runs afresh, unless it was a stream that
 * began and was charged. A retry waits seconds after a crash, not the window (docs/decisions/046).
 */
export async function runIdempotently(
  app: FastifyInstance,
  gateway: Gateway,
  { call, payer, header, request }: { call: GatewayCall; payer: Payer; header: string | string[]; request: FastifyRequest },
): Promise<IdempotentOutcome> {
  const key = idempotencyKeyFrom(header, GATEWAY_REFUSALS);
  // The body is part of the call's fingerprint, so it is read whole first (within the tool's limit).
  call.request.body = await readWhole(call.request.body, gateway.maxRequestBytes(call.tool));
  const body = call.request.body;
  const now = app.clock.now();
  const start = await startKeyedRequest(app.idempotency, GATEWAY_REFUSALS, {
    scope: `apikey:${payer.apiKeyId}`,
    key,
    route: `${call.request.method} ${call.tool.id}${call.request.subpath}`,
    fingerprint: `${call.request.query}\n${body.toString("base64")}`,
    now,
    requestId: call.requestId,
    abandoned: {
      olderThan: new Date(now.getTime() - app.config.gatewayAbandonedAfterMs),
      resolve: async (tx, requestId, answerBegun) =>
        (await resolveUnansweredCall(tx, { requestId, now, answerBegun })) === "run" ? "run" : STREAM_NOT_REPLAYABLE,
    },
  });
  if ("replay" in start) return { replay: start.replay };
  const keyed = start.run;

  let result: GatewayResult;
  try {
    result = await gateway.run(call, payer);
  } catch (error) {
    await keyed.release();
    throw error;
  }
  const { response } = result;
  if (!succeeded(response)) {
    await keyed.release();
  } else if (isStreamed(response)) {
    // A stream cannot be kept for replay. Until it is settled a retry is refused as in progress;
    // then a charged one answers every retry with its own 409, and a refunded one frees the key.
    await keyed
      .begin(response.status)
      .catch((error: unknown) => request.log.error({ err: error }, "could not mark a streamed call's Idempotency-Key as answered; if this process dies before the stream is settled, a retry may run it again"));
    void (result.cost as Promise<bigint>)
      .then((cost) => keyed.settle(cost > 0n ? STREAM_NOT_REPLAYABLE : null, request.log))
      .catch((error: unknown) => request.log.error({ err: error }, "could not settle a streamed call's Idempotency-Key; it stays claimed"));
  } else {
    await keepBeforeSending(app, keyed, request, {
      statusCode: response.status,
      contentType: response.contentType,
      body: Buffer.from(response.body).toString("base64"),
    });
  }
  return { ran: result };
}

/**
 * Keeps a charged answer for replay before it is sent, so that a claim with no answer always means
 * a call never answered. An answer that cannot be kept is not sent: its call is refunded and the
 * key freed (as far as the database allows), and the caller gets an error to retry.
 */
async function keepBeforeSending(app: FastifyInstance, keyed: KeyedRequest, request: FastifyRequest, answer: StoredResponse): Promise<void> {
  try {
    await keyed.keep(answer);
  } catch (error) {
    request.log.error({ err: error }, "could not keep a call's answer for replay; it is not sent, and the call is refunded");
    await resolveUnansweredCall(app.db, { requestId: keyed.claim.requestId, now: app.clock.now(), answerBegun: false })
      .then(() => keyed.release())
      .catch((refundError: unknown) =>
        request.log.error({ err: refundError }, "could not refund a call whose answer was not kept; a retry past the abandoned-call window will"),
      );
    throw new GatewayError("internal_error");
  }
}
