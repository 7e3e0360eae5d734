import { Readable } from "node:stream";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { bearerToken } from "../../lib/bearer";
import { apiKeyHash, followApiKeyChanges } from "../keys/index";
import { CONSOLE_TRY_HEADER } from "./console-tries";
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
import { CallTrace } from "../calls/index";
import { recordAnswer, recordReplay, traceFailure, type EndedCalls } from "./call-record";

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
  // PGlite: two batches in flight, so its thread never waits on this one. PostgreSQL: one, so
  // calls gather into fewer, larger statements, whose fixed cost is most of a small batch's
  // (docs/decisions/012; bench/gateway/README.md).
  const gateway = new Gateway(app.db, app.clock, app.log, app.rateLimiter, await runnableTools(app.catalog.values(), app.log), {
    concurrency: app.database.kind === "postgres" ? 1 : 2,
    onChargeBatch: (size, seconds, ok) => app.metrics.observeChargeBatch(size, seconds, ok),
    onRefund: (reason, micros) => {
      app.metrics.count("refunds", { reason });
      app.metrics.count("refundMicros", { reason }, micros);
    },
  });
  app.metrics.watchHoldsInFlight(() => gateway.holdsInFlight);
  const stopFollowingKeys = await followApiKeyChanges(app.database, app.log, gateway.keys);
  refundAbandonedCallsPeriodically(app);
  const callLog = app.callLog;
  /** Key lookups for refused calls' rows still under way, finished before the log is drained. */
  const identifying = new Set<Promise<void>>();
  app.addHook("onClose", async () => {
    await stopFollowingKeys();
    await gateway.drain();
    await Promise.all(identifying);
    // Streams settled by that drain queue their rows: written before the database closes.
    await callLog.drain();
  });
  passBodiesThrough(app);
  answerErrorsAsGateway(app);

  /** Counts an ended call in the metrics, whoever made it; only a catalog id becomes a label value. */
  const counted = (trace: CallTrace) =>
    app.metrics.observeCall({
      tool: app.catalog.has(trace.toolId) ? trace.toolId : "unknown",
      outcome: trace.outcome,
      status: trace.httpStatus,
      amountMicros: trace.amount,
      prepaidDraws: trace.prepaidDraws,
      prepaidUsed: trace.prepaidUsed,
      upstreamFault: trace.upstreamFault,
      streamedBytes: trace.streamed ? trace.bytesOut : 0,
      totalUs: trace.totalUs,
      upstreamUs: trace.upstreamUs,
    });
  /** Where every ended call goes: the metrics, and the call log when it names a user's key. */
  const endedCalls: EndedCalls = {
    push(trace: CallTrace) {
      counted(trace);
      callLog.push(trace);
    },
  };

  /**
   * A call refused before its key was looked up (an unknown tool, a bad path) is still its key
   * owner's: the key is looked up for the log after the answer, off the call's path.
   */
  const identifyLater = (trace: CallTrace, credential: GatewayCall["credential"]) => {
    if (!credential?.keyHash) return;
    const lookup = gateway.keys.get(credential.keyHash, trace.receivedAt.getTime()).then(
      (cached) => {
        if (!cached) return;
        trace.identified(cached.found);
        callLog.push(trace);
      },
      (error: unknown) => app.log.warn({ err: error, requestId: trace.requestId }, "could not look up the key of a refused call for the call log"),
    );
    identifying.add(lookup);
    void lookup.finally(() => identifying.delete(lookup));
  };

  /**
   * Where a caller who named no tool of the catalog finds one: the id it meant, written in another
   * case (ids are case-sensitive; "Echo" is a name), or else the docs' list of tools.
   */
  const unknownToolMessage = (id: string): string => {
    const shown = JSON.stringify(id.length > 64 ? `${id.slice(0, 64)}…` : id);
    const meant = [...app.catalog.keys()].find((known) => known.toLowerCase() === id.toLowerCase());
    if (meant) return `there is no tool with the id ${shown}: tool ids are case-sensitive, did you mean ${JSON.stringify(meant)}?`;
    return `there is no tool with the id ${shown}: the tools and their ids are listed at ${app.config.publicUrl}/docs/tools.html`;
  };

  /** The call a request makes, checked as far as it can be before its key is: tool, method and path. */
  const gatewayCall = (
    request: FastifyRequest<{ Params: { toolId: string } }>,
    reply: FastifyReply,
    trace: CallTrace,
    credential: GatewayCall["credential"],
  ): GatewayCall => {
    const tool = app.catalog.get(request.params.toolId);
    if (!tool) throw new GatewayError("unknown_tool", unknownToolMessage(request.params.toolId));
    if (METHODS_NOT_PASSED.has(request.method)) throw new GatewayError("bad_request", `${request.method} is not passed to tools`);
    const url = request.raw.url ?? "";
    // An absolute-form target (`POST http://host/v1/tools/…`, meant for proxies) has no sub-path where the tool's route says.
    if (!url.startsWith(TOOLS_PREFIX)) throw new GatewayError("bad_path", "send the path as /v1/tools/…, not as an absolute URL");
    const target = callerTarget(url, toolSegmentEnd(url, TOOLS_PREFIX));
    const callerSignal = abortWhenCallerLeaves(reply);
    return {
      tool,
      credential,
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
      trace,
    };
  };

  const serve = async (call: GatewayCall, request: FastifyRequest, reply: FastifyReply, ended: EndedCalls) => {
    const trace = call.trace!;
    const payer = await gateway.admit(call);
    trace.keyChecked();
    const header = request.headers["idempotency-key"];
    const contentLength = request.headers["content-length"];
    if (header === undefined) {
      const result = await gateway.run(call, payer);
      recordAnswer(ended, trace, call, result, contentLength);
      return sendToolResponse(reply, result);
    }
    const outcome = await runIdempotently(app, gateway, { call, payer, header, request });
    if ("replay" in outcome) {
      recordReplay(ended, trace, call, outcome.replay, contentLength);
      return sendReplay(reply, outcome.replay);
    }
    recordAnswer(ended, trace, call, outcome.ran, contentLength);
    return sendToolResponse(reply, outcome.ran);
  };

  /**
   * Every call that names a user's key leaves one row in the call log, whatever its outcome. A
   * console try names its key by a token the console opened (console-tries.ts), and its caller
   * (the console route) learns how the call ended.
   */
  const handle = async (request: FastifyRequest<{ Params: { toolId: string } }>, reply: FastifyReply) => {
    const trace = new CallTrace(request.id, request.params.toolId, request.ip, app.clock.now(), performance.now());
    const consoleTry = request.headers[CONSOLE_TRY_HEADER] === undefined ? null : app.consoleTries.take(request.headers[CONSOLE_TRY_HEADER]);
    delete request.headers[CONSOLE_TRY_HEADER];
    let credential: GatewayCall["credential"];
    let ended: EndedCalls = endedCalls;
    if (consoleTry) {
      credential = { keyHash: consoleTry.keyHash };
      trace.fromConsole = true;
      ended = {
        push(done) {
          endedCalls.push(done);
          consoleTry.end(done);
        },
      };
    } else {
      const rawKey = bearerToken(request.headers.authorization);
      credential = rawKey === null ? null : { keyHash: apiKeyHash(rawKey) };
    }
    let call: GatewayCall;
    try {
      call = gatewayCall(request, reply, trace, credential);
    } catch (error) {
      traceFailure(trace, undefined, error, request.headers["content-length"]);
      counted(trace);
      consoleTry?.end(trace);
      identifyLater(trace, credential);
      throw error;
    }
    try {
      return await serve(call, request, reply, ended);
    } catch (error) {
      traceFailure(trace, call, error, request.headers["content-length"]);
      ended.push(trace);
      throw error;
    }
  };

  app.all("/tools/:toolId", handle);
  app.all("/tools/:toolId/*", handle);
  if (app.config.unmeteredEcho) unmeteredEchoRoute(app);
}
