import type { FastifyInstance, FastifyRequest } from "fastify";
import { IDEMPOTENCY_KEY_PATTERN, type StoredResponse } from "../../lib/idempotency-store";
import { succeeded, type Gateway, type GatewayCall, type GatewayResult, type Payer } from "./gateway";
import { GatewayError } from "./gateway-error";
import { isStreamed } from "./handlers/types";
import { abandonedCallMayRunAgain } from "./metering";
import { readWhole } from "./request-body";

/** What a retry of a charged streamed call gets in place of a replay. */
const STREAM_NOT_REPLAYABLE: StoredResponse = (() => {
  const error = new GatewayError("idempotency_stream_not_replayable");
  return { statusCode: error.status, contentType: "application/json; charset=utf-8", body: Buffer.from(JSON.stringify(error.toJSON())).toString("base64") };
})();

export type IdempotentOutcome = { ran: GatewayResult } | { replay: StoredResponse };

/**
 * An admitted call with an `Idempotency-Key`, claimed per API key through the app's one
 * Idempotency-Key store: a repeat gets the first charged answer back, free; a call that was not
 * charged frees the key. A claim left by a process that died is taken over once its call is known
 * to be refunded (the abandoned-call window), so a retry is never refused for a day.
 */
export async function runIdempotently(
  app: FastifyInstance,
  gateway: Gateway,
  { call, payer, key, request }: { call: GatewayCall; payer: Payer; key: string | string[]; request: FastifyRequest },
): Promise<IdempotentOutcome> {
  if (typeof key !== "string" || !IDEMPOTENCY_KEY_PATTERN.test(key)) throw new GatewayError("invalid_idempotency_key");
  // The body is part of the call's fingerprint, so it is read whole first (within the tool's limit).
  call.request.body = await readWhole(call.request.body, gateway.maxRequestBytes(call.tool));
  const body = call.request.body;
  const scope = `apikey:${payer.apiKeyId}`;
  const now = app.clock.now();
  const claim = await app.idempotency.claim({
    scope,
    key,
    route: `${call.request.method} ${call.tool.id}${call.request.subpath}`,
    fingerprint: `${call.request.query}\n${body.toString("base64")}`,
    now,
    requestId: call.requestId,
    abandoned: {
      olderThan: new Date(now.getTime() - app.config.gatewayAbandonedAfterMs),
      mayRunAgain: (requestId) => abandonedCallMayRunAgain(app.db, requestId, now),
    },
  });
  if (claim.outcome === "replay") return { replay: claim.response };
  if (claim.outcome === "mismatch") throw new GatewayError("idempotency_key_reused");
  if (claim.outcome === "in_progress") throw new GatewayError("idempotency_in_progress");

  let result: GatewayResult;
  try {
    result = await gateway.run(call, payer);
  } catch (error) {
    await app.idempotency.release(scope, key);
    throw error;
  }
  const { response } = result;
  if (!succeeded(response)) {
    await app.idempotency.release(scope, key);
  } else if (isStreamed(response)) {
    // A stream cannot be kept for replay. Until it is settled a retry is refused as in progress;
    // then a charged one answers every retry with its own 409, and a refunded one frees the key.
    void (result.cost as Promise<bigint>)
      .then((cost) => app.idempotency.settle(scope, key, cost > 0n ? STREAM_NOT_REPLAYABLE : null, request.log))
      .catch((error: unknown) => request.log.error({ err: error }, "could not settle a streamed call's Idempotency-Key; it stays claimed"));
  } else {
    await app.idempotency.settle(scope, key, { statusCode: response.status, contentType: response.contentType, body: Buffer.from(response.body).toString("base64") }, request.log);
  }
  return { ran: result };
}
