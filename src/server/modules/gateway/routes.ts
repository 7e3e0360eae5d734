import { Readable } from "node:stream";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { bearerToken } from "../../lib/bearer";
import { followApiKeyChanges } from "../keys/index";
import { refundAbandonedCallsPeriodically } from "./abandoned-calls";
import { unmeteredEchoRoute } from "./echo-route";
import { answerErrorsAsGateway } from "./error-handler";
import { Gateway, type GatewayCall } from "./gateway";
import { GatewayError } from "./gateway-error";
import { runnableTools } from "./handlers/index";
import { runIdempotently } from "./idempotent-call";
import { passBodiesThrough } from "./raw-bodies";
import { sendReplay, sendToolResponse } from "./tool-response";
import { callerTarget, toolSegmentEnd } from "./upstream-path";

/** Where tool routes start in a raw request target: the app registers these routes under /v1. */
const TOOLS_PREFIX = "/v1/tools/";
/** Methods about the connection or the path itself, not a call: TRACE would echo the operator's headers back. */
const METHODS_NOT_PASSED = new Set(["TRACE", "TRACK", "CONNECT"]);

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
  const gateway = new Gateway(app.db, app.clock, app.log, app.rateLimiter, await runnableTools(app.catalog.values(), app.log), {
    concurrency: 2,
    onChargeBatch: (size, seconds, ok) => app.metrics.observeChargeBatch(size, seconds, ok),
  });
  const stopFollowingKeys = await followApiKeyChanges(app.database, app.log, gateway.keys);
  refundAbandonedCallsPeriodically(app);
  app.addHook("onClose", async () => {
    await stopFollowingKeys();
    await gateway.drain();
  });
  passBodiesThrough(app);
  answerErrorsAsGateway(app);

  const handle = async (request: FastifyRequest<{ Params: { toolId: string } }>, reply: FastifyReply) => {
    const tool = app.catalog.get(request.params.toolId);
    if (!tool) throw new GatewayError("unknown_tool");
    if (METHODS_NOT_PASSED.has(request.method)) throw new GatewayError("bad_request", `${request.method} is not passed to tools`);
    const url = request.raw.url ?? "";
    // An absolute-form target (`POST http://host/v1/tools/…`, meant for proxies) has no sub-path where the tool's route says.
    if (!url.startsWith(TOOLS_PREFIX)) throw new GatewayError("bad_path", "send the path as /v1/tools/…, not as an absolute URL");
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
    const header = request.headers["idempotency-key"];
    if (header === undefined) return sendToolResponse(reply, await gateway.run(call, payer));
    const outcome = await runIdempotently(app, gateway, { call, payer, header, request });
    return "replay" in outcome ? sendReplay(reply, outcome.replay) : sendToolResponse(reply, outcome.ran);
  };

  app.all("/tools/:toolId", handle);
  app.all("/tools/:toolId/*", handle);
  if (app.config.unmeteredEcho) unmeteredEchoRoute(app);
}
