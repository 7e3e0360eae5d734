import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { COST_HEADER } from "../../../shared/gateway";
import { IDEMPOTENCY_KEY_PATTERN } from "../../lib/idempotency-store";
import { errorBodyFor } from "../../plugins/errors";
import { API_KEY_CHANNEL, onLocalApiKeyChange } from "../keys/changes";
import { Gateway, costHeader, succeeded, type GatewayResult } from "./gateway";
import { GatewayError } from "./gateway-error";
import type { ToolResponse } from "./handlers/types";
import { refundAbandonedCalls } from "./metering";
import { callerTarget, toolSegmentEnd } from "./upstream-path";

const BODY_LIMIT = 10 * 1024 * 1024;
/** Where tool routes start in a raw request target: the app registers these routes under /v1. */
const TOOLS_PREFIX = "/v1/tools/";
/** Far beyond the longest tool timeout (120 s): a call still pending then was never answered. */
export const ABANDONED_AFTER_MS = 10 * 60_000;

function bearer(request: FastifyRequest): string | null {
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? "");
  return match?.[1] ?? null;
}

function sendError(reply: FastifyReply, error: GatewayError) {
  return reply.code(error.status).headers(error.headers).header("cache-control", "no-store").send(error.toJSON());
}

function sendToolResponse(reply: FastifyReply, response: ToolResponse, cost: bigint) {
  return reply
    .code(response.status)
    .header(COST_HEADER, costHeader(cost))
    .header("cache-control", "no-store")
    .type(response.contentType)
    .send(response.body);
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
  const gateway = new Gateway(app.db, app.clock, app.log, { concurrency: 2 });
  const stopLocal = onLocalApiKeyChange((hash) => gateway.keys.evict(hash));
  const stopRemote = app.database.listen ? await app.database.listen(API_KEY_CHANNEL, (hash) => gateway.keys.evict(hash)) : null;
  // Calls charged by a process that stopped before they ended get their money back.
  const sweeper = setInterval(() => {
    const now = app.clock.now();
    refundAbandonedCalls(app.db, { olderThan: new Date(now.getTime() - ABANDONED_AFTER_MS), now })
      .then((refunded) => refunded > 0 && app.log.warn({ refunded }, "refunded calls abandoned by a stopped server"))
      .catch((error: unknown) => app.log.error({ err: error }, "could not refund abandoned calls"));
  }, 60_000);
  sweeper.unref();
  app.addHook("onClose", async () => {
    clearInterval(sweeper);
    stopLocal();
    await stopRemote?.();
    await gateway.drain();
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: BODY_LIMIT }, (_request, body, done) => done(null, body));

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
    const call = {
      tool,
      rawKey: bearer(request),
      clientIp: request.ip,
      requestId: request.id,
      request: {
        method: request.method,
        subpath: target.subpath,
        query: target.query,
        contentType: request.headers["content-type"],
        accept: request.headers.accept,
        body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
        get signal() {
          return callerSignal();
        },
      },
      callerGone: () => reply.raw.destroyed && !reply.raw.writableFinished,
    };
    const payer = await gateway.admit(call);

    const idempotencyKey = request.headers["idempotency-key"];
    if (idempotencyKey === undefined) {
      const { response, cost } = await gateway.run(call, payer);
      return sendToolResponse(reply, response, cost);
    }
    if (typeof idempotencyKey !== "string" || !IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey)) {
      throw new GatewayError("invalid_idempotency_key");
    }
    const scope = `apikey:${payer.apiKeyId}`;
    const claim = await app.idempotency.claim({
      scope,
      key: idempotencyKey,
      route: `${request.method} ${tool.id}${call.request.subpath}`,
      fingerprint: `${call.request.query}\n${call.request.body.toString("base64")}`,
      now: app.clock.now(),
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
    const { response, cost } = result;
    if (!succeeded(response)) {
      await app.idempotency.release(scope, idempotencyKey);
    } else {
      // The call is charged: whatever happens to its replay copy, the key must never run it again.
      await app.idempotency
        .complete(scope, idempotencyKey, { statusCode: response.status, contentType: response.contentType, body: Buffer.from(response.body).toString("base64") })
        .catch((error: unknown) => request.log.error({ err: error }, "could not keep a charged call's answer for replay; its key stays claimed"));
    }
    return sendToolResponse(reply, response, cost);
  };

  app.all("/tools/:toolId", handle);
  app.all("/tools/:toolId/*", handle);

  if (app.config.unmeteredEcho) {
    // The benchmark's baseline: the same server and body handling, with no key, no charge, no database.
    app.post("/echo", async (request, reply) =>
      reply.type(request.headers["content-type"] ?? "application/octet-stream").send(request.body),
    );
  }
}
