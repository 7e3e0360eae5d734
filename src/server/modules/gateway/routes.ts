import { Readable } from "node:stream";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { COST_HEADER } from "#shared/gateway";
import { bearerToken } from "../../lib/bearer";
import { IDEMPOTENCY_KEY_PATTERN } from "../../lib/idempotency-store";
import { errorBodyFor } from "../../plugins/errors";
import { followApiKeyChanges } from "../keys/changes";
import { Gateway, costHeader, succeeded, type GatewayCall, type GatewayResult } from "./gateway";
import { GatewayError } from "./gateway-error";
import { isStreamed } from "./handlers/types";
import { abandonedCallMayRunAgain, refundAbandonedCalls } from "./metering";
import { BUILTIN_MAX_REQUEST_BYTES, readWhole } from "./request-body";
import { callerTarget, toolSegmentEnd } from "./upstream-path";

/** Where tool routes start in a raw request target: the app registers these routes under /v1. */
const TOOLS_PREFIX = "/v1/tools/";

/** What a retry of a charged streamed call gets in place of a replay. */
const STREAM_NOT_REPLAYABLE = (() => {
  const error = new GatewayError("idempotency_stream_not_replayable");
  return { statusCode: error.status, contentType: "application/json; charset=utf-8", body: Buffer.from(JSON.stringify(error.toJSON())).toString("base64") };
})();

function sendError(reply: FastifyReply, error: GatewayError) {
  return reply.code(error.status).headers(error.headers).header("cache-control", "no-store").send(error.toJSON());
}

/**
 * The tool's answer with the upstream's headers. A streamed answer's cost is known only at its
 * end, so it comes as an HTTP trailer of the same name.
 */
function sendToolResponse(reply: FastifyReply, { response, cost }: GatewayResult) {
  reply.code(response.status).headers(response.headers ?? {}).header("cache-control", "no-store").type(response.contentType);
  if (isStreamed(response)) {
    const settled = cost as Promise<bigint>;
    return reply.trailer(COST_HEADER, async () => costHeader(await settled)).send(response.body);
  }
  return reply.header(COST_HEADER, costHeader(cost as bigint)).send(response.body);
}

/**
 * A signal aborted when the caller goes away before the answer is sent. Made on first use:
 * built-in tools never look, and an AbortController per call is a measurable share of a call.
 */
function abortWhenCallerLeaves(reply: FastifyReply): () => AbortSignal {
  let controller: AbortController | undefined;
  return () => {
    if (!controller) {
      const made = new AbortController();
      const abortIfUnanswered = () => {
        if (!reply.raw.writableFinished) made.abort();
      };
      if (reply.raw.destroyed) abortIfUnanswered();
      else reply.raw.once("close", abortIfUnanswered);
      controller = made;
    }
    return controller.signal;
  };
}

/**
 * `{gateway}/v1/tools/{toolId}[/sub/path]` with `Authorization: Bearer <api key>`: the product.
 * Bodies arrive as raw bytes and go to the tool untouched; errors are `{error: {code, message}}`.
 */
export default async function gatewayRoutes(app: FastifyInstance) {
  // Two batches in flight: one runs while the next waits at the database, so the database never
  // waits on this thread. More only queue on the same users' row locks (bench/gateway/README.md).
  const gateway = new Gateway(app.db, app.clock, app.log, app.rateLimiter, {
    concurrency: 2,
    onChargeBatch: (size, seconds, ok) => app.metrics.observeChargeBatch(size, seconds, ok),
  });
  const stopFollowingKeys = await followApiKeyChanges(app.database, app.log, gateway.keys);
  const abandonedAfterMs = app.config.gatewayAbandonedAfterMs;
  const slowest = [...app.catalog.values()].reduce((most, tool) => Math.max(most, tool.handler.type === "http" ? tool.handler.totalTimeoutMs : 0), 0);
  if (slowest >= abandonedAfterMs) {
    throw new Error(`GATEWAY_ABANDONED_AFTER_SECONDS must exceed the longest tool's total timeout (${slowest} ms): a call still running would be refunded`);
  }
  // Calls charged by a process that stopped before they ended get their money back.
  app.every("refund abandoned calls", Math.min(60_000, abandonedAfterMs), async () => {
    const now = app.clock.now();
    const refunded = await refundAbandonedCalls(app.db, { olderThan: new Date(now.getTime() - abandonedAfterMs), now });
    if (refunded > 0) app.log.warn({ refunded }, "refunded calls abandoned by a stopped server");
  });
  app.addHook("onClose", async () => {
    await stopFollowingKeys();
    await gateway.drain();
  });

  // Bodies are read by the gateway only after the call is admitted: whole for a built-in tool,
  // streamed to an upstream (each with its limit, request-body.ts).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", (_request, payload, done) => done(null, payload));

  // Unknown routes under /v1 are answered by the app's not-found handler, in this family's shape.
  app.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
    if (error instanceof GatewayError) return sendError(reply, error);
    const status = error.statusCode ?? 500;
    if (status >= 500) request.log.error({ err: error }, "gateway call failed");
    return reply.code(status).header("cache-control", "no-store").send(errorBodyFor(request.url, status, status === 413 ? undefined : error.message));
  });

  const handle = async (request: FastifyRequest<{ Params: { toolId: string } }>, reply: FastifyReply) => {
    const tool = app.catalog.get(request.params.toolId);
    if (!tool) throw new GatewayError("unknown_tool");
    const url = request.raw.url ?? "";
    const target = callerTarget(url, toolSegmentEnd(url, TOOLS_PREFIX));
    const callerSignal = abortWhenCallerLeaves(reply);
    const call: GatewayCall = {
      tool,
      rawKey: bearerToken(request.headers.authorization),
      clientIp: request.ip,
      requestId: request.id,
      request: {
        method: request.method,
        subpath: target.subpath,
        query: target.query,
        contentType: request.headers["content-type"],
        accept: request.headers.accept,
        headers: request.headers,
        requestId: request.id,
        body: request.body instanceof Readable ? request.body : Buffer.alloc(0),
        get signal() {
          return callerSignal();
        },
      },
      callerGone: () => reply.raw.destroyed && !reply.raw.writableFinished,
    };
    const payer = await gateway.admit(call);

    const idempotencyKey = request.headers["idempotency-key"];
    if (idempotencyKey === undefined) return sendToolResponse(reply, await gateway.run(call, payer));
    if (typeof idempotencyKey !== "string" || !IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey)) {
      throw new GatewayError("invalid_idempotency_key");
    }
    // The body is part of the call's fingerprint, so it is read whole first (within the tool's limit).
    call.request.body = await readWhole(call.request.body, gateway.maxRequestBytes(tool));
    const body = call.request.body;
    const scope = `apikey:${payer.apiKeyId}`;
    const now = app.clock.now();
    const claim = await app.idempotency.claim({
      scope,
      key: idempotencyKey,
      route: `${request.method} ${tool.id}${call.request.subpath}`,
      fingerprint: `${call.request.query}\n${body.toString("base64")}`,
      now,
      requestId: request.id,
      abandoned: {
        olderThan: new Date(now.getTime() - abandonedAfterMs),
        mayRunAgain: (requestId) => abandonedCallMayRunAgain(app.db, requestId, now),
      },
    });
    if (claim.outcome === "replay") {
      const stored = claim.response;
      return reply
        .code(stored.statusCode)
        .header("idempotent-replayed", "true")
        .header(COST_HEADER, costHeader(0n))
        .type(stored.contentType ?? "application/octet-stream")
        .send(Buffer.from(stored.body, "base64"));
    }
    if (claim.outcome === "mismatch") throw new GatewayError("idempotency_key_reused");
    if (claim.outcome === "in_progress") throw new GatewayError("idempotency_in_progress");
    let result: GatewayResult;
    try {
      result = await gateway.run(call, payer);
    } catch (error) {
      await app.idempotency.release(scope, idempotencyKey);
      throw error;
    }
    const { response } = result;
    if (!succeeded(response)) {
      await app.idempotency.release(scope, idempotencyKey);
    } else if (isStreamed(response)) {
      // A stream cannot be kept for replay. Until it is settled a retry is refused as in progress;
      // then a charged one answers every retry with its own 409, and a refunded one frees the key.
      void (result.cost as Promise<bigint>)
        .then((cost) => (cost > 0n ? app.idempotency.complete(scope, idempotencyKey, STREAM_NOT_REPLAYABLE) : app.idempotency.release(scope, idempotencyKey)))
        .catch((error: unknown) => request.log.error({ err: error }, "could not settle a streamed call's Idempotency-Key; it stays claimed"));
    } else {
      // The call is charged: whatever happens to its replay copy, the key must never run it again.
      await app.idempotency
        .complete(scope, idempotencyKey, { statusCode: response.status, contentType: response.contentType, body: Buffer.from(response.body).toString("base64") })
        .catch((error: unknown) => request.log.error({ err: error }, "could not keep a charged call's answer for replay; its key stays claimed"));
    }
    return sendToolResponse(reply, result);
  };

  app.all("/tools/:toolId", handle);
  app.all("/tools/:toolId/*", handle);

  if (app.config.unmeteredEcho) {
    // The benchmark's baseline: the same server and body handling, with no key, no charge, no database.
    app.post("/echo", async (request, reply) =>
      reply
        .type(request.headers["content-type"] ?? "application/octet-stream")
        .send(await readWhole(request.body instanceof Readable ? request.body : Buffer.alloc(0), BUILTIN_MAX_REQUEST_BYTES)),
    );
  }
}
