import type { FastifyReply } from "fastify";
import { COST_HEADER, QUOTA_HEADER } from "#shared/gateway";
import { formatMoney } from "#shared/money";
import type { StoredResponse } from "../../lib/idempotency-store";
import { replayOn } from "../../lib/idempotent-request";
import { TOOL_ANSWER_POLICY } from "../../lib/tool-answer-policy";
import type { GatewayResult } from "./gateway";
import type { GatewayError } from "./gateway-error";
import { isStreamed } from "./handlers/types";

export function sendGatewayError(reply: FastifyReply, error: GatewayError) {
  return reply.code(error.status).headers(error.headers).header("cache-control", "no-store").send(error.toJSON());
}

/**
 * The tool's answer with the upstream's headers. A streamed answer's cost is known only at its
 * end, so it comes as an HTTP trailer of the same name.
 */
export function sendToolResponse(reply: FastifyReply, { response, cost, quotaRemaining }: GatewayResult) {
  if (quotaRemaining !== undefined) reply.header(QUOTA_HEADER, String(quotaRemaining));
  reply
    .code(response.status)
    .headers(response.headers ?? {})
    .header("cache-control", "no-store")
    .header("content-security-policy", TOOL_ANSWER_POLICY)
    .type(response.contentType);
  if (isStreamed(response)) {
    const settled = cost as Promise<bigint>;
    return reply.trailer(COST_HEADER, async () => formatMoney(await settled)).send(response.body);
  }
  return reply.header(COST_HEADER, formatMoney(cost as bigint)).send(response.body);
}

/** A stored answer sent again for a retried Idempotency-Key: the retry itself costs nothing. */
export function sendReplay(reply: FastifyReply, stored: StoredResponse) {
  const body = replayOn(reply, stored);
  return reply.header("content-security-policy", TOOL_ANSWER_POLICY).header(COST_HEADER, formatMoney(0n)).send(body);
}
