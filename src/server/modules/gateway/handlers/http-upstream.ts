import type { IncomingHttpHeaders } from "node:http";
import type { FastifyBaseLogger } from "fastify";
import { Readable } from "node:stream";
import { Agent, request as undiciRequest, type Dispatcher } from "undici";
import type { HttpHandlerConfig } from "../../catalog/catalog-file";
import { upstreamUrl } from "../upstream-path";
import { UpstreamError, upstreamFault, type StreamedToolResponse, type UpstreamHandler, type UpstreamRequest } from "./types";
import { decompressorFor, SseUnits, UNITS_HEADER, unitsInJson, unitsValue } from "./units-report";

export { UNITS_HEADER } from "./units-report";

/** Headers that describe one connection, not the message (RFC 9110 §7.6.1). */
const HOP_BY_HOP = ["connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade"];
/**
 * The caller's credentials, cookies and addressing stay at the gateway; the body's length is the
 * gateway's to state. Headers some frameworks read as another path, method or client address are
 * the caller's word, not the gateway's: they would take the call outside what the tool allows.
 */
const NOT_TO_UPSTREAM = new Set([
  ...HOP_BY_HOP,
  ...["host", "authorization", "cookie", "content-length", "expect", "x-request-id", "idempotency-key"],
  ...["x-original-url", "x-rewrite-url", "x-http-method-override", "x-http-method", "x-method-override"],
  ...["forwarded", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-forwarded-port", "x-forwarded-prefix", "x-real-ip", "x-client-ip", "true-client-ip"],
]);
/**
 * The caller's x-request-id is Tollgate's; cookies of the upstream's origin mean nothing at the
 * gateway's. The answer is served from the site's own origin, so the security headers are
 * Tollgate's (helmet's, and a CSP that sandboxes the answer: plugins/security.ts), and what only
 * Tollgate may say (a replay) is not the tool's.
 */
const NOT_TO_CALLER = new Set([
  ...[...HOP_BY_HOP, "set-cookie", "x-request-id", "content-length", UNITS_HEADER, "idempotent-replayed"],
  ...["content-security-policy", "content-security-policy-report-only", "x-frame-options", "x-content-type-options", "strict-transport-security"],
  ...["cross-origin-opener-policy", "cross-origin-resource-policy", "cross-origin-embedder-policy", "origin-agent-cluster", "referrer-policy", "x-xss-protection"],
  ...["x-dns-prefetch-control", "x-download-options", "x-permitted-cross-domain-policies"],
  ...["allow-origin", "allow-credentials", "allow-headers", "allow-methods", "expose-headers", "max-age"].map((name) => `access-control-${name}`),
]);
/** JSON answers and errors are read whole before they are answered, up to this size. */
const MAX_BUFFERED_ANSWER = 10 * 1024 * 1024;

type Headers = Record<string, string | string[] | undefined>;

/** Whether the answer is relayed as it arrives: anything but JSON, answered with success and a body. */
function streams(method: string, status: number, contentType: string): boolean {
  if (method === "HEAD" || status < 200 || status >= 300 || status === 204) return false;
  const mediaType = contentType.split(";", 1)[0]!.trim().toLowerCase();
  return !(mediaType === "application/json" || mediaType.endsWith("+json"));
}

/** Names listed in a Connection header are hop-by-hop too. */
function connectionTokens(headers: Headers): Set<string> {
  const value = headers.connection;
  const text = Array.isArray(value) ? value.join(",") : (value ?? "");
  return new Set(text.split(",").map((token) => token.trim().toLowerCase()).filter(Boolean));
}

function passOn(headers: Headers, refused: Set<string>): Record<string, string | string[]> {
  const listed = connectionTokens(headers);
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value === undefined || refused.has(lower) || listed.has(lower)) continue;
    kept[lower] = value;
  }
  return kept;
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[value.length - 1] : value;
}

function upstreamHeaders(config: HttpHandlerConfig, request: UpstreamRequest): Record<string, string | string[]> {
  const headers = passOn(request.headers as IncomingHttpHeaders as Headers, NOT_TO_UPSTREAM);
  // A body the gateway must read for units is asked for uncompressed.
  if (config.unitsPath) headers["accept-encoding"] = "identity";
  const declared = request.headers["content-length"];
  if (!Buffer.isBuffer(request.body) && declared !== undefined) headers["content-length"] = declared;
  headers["x-request-id"] = request.requestId;
  return { ...headers, ...config.headers };
}

/**
 * The most of a compressed event stream the gateway inflates to read its units: as much as it
 * reads of a JSON answer, room for a long completion's events. Inflating and reading cost CPU for
 * every byte out, and a small answer can inflate a thousandfold (a 255 KB gzip answer took 14 s to
 * read); past this, the answer counts as one that reports no units. Streams are asked for
 * uncompressed (upstreamHeaders), so only an upstream that compresses anyway comes near it.
 */
export const MAX_INFLATED_FOR_UNITS = MAX_BUFFERED_ANSWER;

/**
 * Reads units from the body as it passes, decompressing a copy if the upstream compressed it
 * anyway, up to MAX_INFLATED_FOR_UNITS (`onLimit` hears when it stops there).
 */
function bodyUnitsReader(config: HttpHandlerConfig, contentType: string, contentEncoding: string | undefined, onLimit: (inflatedBytes: number) => void) {
  const path = config.unitsPath;
  if (!path || !/^text\/event-stream\b/i.test(contentType.trim())) return null;
  const events = new SseUnits(path);
  const decompressor = decompressorFor(contentEncoding);
  if (!decompressor) return { write: (chunk: Buffer) => events.write(chunk), end: async () => (events.end(), events.units) };
  let inflated = 0;
  let overLimit = false;
  const done = new Promise<void>((resolve) => {
    decompressor.once("end", resolve);
    decompressor.once("error", () => resolve());
    decompressor.once("close", resolve);
  });
  decompressor.on("data", (chunk: Buffer) => {
    if (overLimit) return;
    inflated += chunk.length;
    if (inflated <= MAX_INFLATED_FOR_UNITS) return events.write(chunk);
    overLimit = true;
    decompressor.destroy();
    onLimit(inflated);
  });
  return {
    write: (chunk: Buffer) => void (overLimit || decompressor.write(chunk)),
    end: async () => {
      if (!overLimit) decompressor.end();
      await done;
      if (overLimit) return undefined;
      events.end();
      return events.units;
    },
  };
}

async function readCapped(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BUFFERED_ANSWER) {
      body.destroy();
      throw new UpstreamError("failed", `the tool's JSON or error answer is larger than ${MAX_BUFFERED_ANSWER} bytes`, "other");
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

async function unitsInBufferedJson(body: Buffer, path: string, contentEncoding: string | undefined): Promise<number | undefined> {
  const decompressor = decompressorFor(contentEncoding);
  if (!decompressor) return unitsInJson(body.toString("utf8"), path);
  try {
    const text = await readCapped(Readable.from([body]).pipe(decompressor));
    return unitsInJson(text.toString("utf8"), path);
  } catch {
    return undefined;
  }
}

/**
 * Forwards the call to the operator's upstream through a keep-alive pool, the request body
 * streamed. JSON answers and errors come back whole; anything else (event streams, downloads)
 * is relayed as it arrives. Units come from the x-tool-units trailer, else the body at
 * `unitsPath`, else the x-tool-units header (docs/site/operators.md).
 */
export function httpUpstream(config: HttpHandlerConfig, log: FastifyBaseLogger): { run: UpstreamHandler; close(): Promise<void> } {
  const pool: Dispatcher = new Agent({
    connect: { timeout: config.connectTimeoutMs },
    headersTimeout: config.timeoutMs,
    bodyTimeout: config.idleTimeoutMs,
  });
  const run: UpstreamHandler = async (request) => {
    // Cancelled before it started (the caller left, or its hold was refused): the tool is not called.
    if (request.signal.aborted) throw new UpstreamError("failed", "the call was cancelled before the tool was called");
    const url = upstreamUrl(config.url, request);
    const method = config.method === "ANY" ? request.method : config.method;
    // The caller's going away aborts the call only until the answer starts; after that the
    // upstream is read to its end to learn the units (decision 013).
    const abort = new AbortController();
    const callerGone = () => abort.abort(new UpstreamError("failed", "the caller went away"));
    request.signal.addEventListener("abort", callerGone, { once: true });
    const total = setTimeout(() => abort.abort(new UpstreamError("timeout", `the tool did not finish within ${config.totalTimeoutMs} ms`, "timeout")), config.totalTimeoutMs);
    total.unref();
    const stopTimers = () => clearTimeout(total);

    let answer: Dispatcher.ResponseData;
    try {
      answer = await undiciRequest(url, {
        dispatcher: pool,
        method: method as Dispatcher.HttpMethod,
        headers: upstreamHeaders(config, request),
        body: method === "GET" || method === "HEAD" ? undefined : request.body,
        signal: abort.signal,
      });
    } catch (error) {
      stopTimers();
      throw failure(error, request, abort.signal, config);
    } finally {
      request.signal.removeEventListener("abort", callerGone);
    }

    const headers = answer.headers as Headers;
    const contentType = headerText(headers["content-type"]) ?? "application/octet-stream";
    const contentEncoding = headerText(headers["content-encoding"]);
    const headerUnits = unitsValue(headerText(headers[UNITS_HEADER]));
    const trailerUnits = () => unitsValue(headerText((answer.trailers as Headers)[UNITS_HEADER]));
    const passed = passOn(headers, NOT_TO_CALLER);

    if (!streams(method, answer.statusCode, contentType)) {
      let body: Buffer;
      try {
        body = await readCapped(answer.body);
      } catch (error) {
        throw failure(error, request, abort.signal, config);
      } finally {
        stopTimers();
      }
      const bodyUnits = config.unitsPath && body.length > 0 ? await unitsInBufferedJson(body, config.unitsPath, contentEncoding) : undefined;
      return { status: answer.statusCode, contentType, headers: passed, body, units: trailerUnits() ?? bodyUnits ?? headerUnits };
    }

    const reader = bodyUnitsReader(config, contentType, contentEncoding, (inflatedBytes) =>
      log.warn(
        { requestId: request.requestId, inflatedBytes, limitBytes: MAX_INFLATED_FOR_UNITS },
        "a compressed answer inflates past the limit read for units: the rest is relayed unread, as an answer that reports no units",
      ),
    );
    answer.body.once("close", stopTimers);
    return {
      status: answer.statusCode,
      contentType,
      headers: passed,
      body: answer.body,
      observe: reader ? reader.write : () => undefined,
      units: async () => trailerUnits() ?? (reader ? await reader.end() : undefined) ?? headerUnits,
    } satisfies StreamedToolResponse;
  };
  return { run, close: () => pool.close() };
}

/** What went wrong, as the UpstreamError the gateway maps to 502 or 504 (or a 413 for the caller's body). */
function failure(error: unknown, request: UpstreamRequest, signal: AbortSignal, config: HttpHandlerConfig): Error {
  // The caller's body broke; undici also destroys it with the error of a tool it could not reach, which is the tool's.
  const bodyError = Buffer.isBuffer(request.body) ? null : request.body.errored;
  if (bodyError && upstreamFault(bodyError) !== "connect") return bodyError;
  if (signal.aborted && signal.reason instanceof UpstreamError) return signal.reason;
  if (error instanceof UpstreamError) return error;
  const code = (error as { code?: string }).code;
  if (code === "UND_ERR_CONNECT_TIMEOUT") return new UpstreamError("timeout", `the tool could not be reached within ${config.connectTimeoutMs} ms`, "connect");
  if (code === "UND_ERR_HEADERS_TIMEOUT") return new UpstreamError("timeout", `the tool did not answer within ${config.timeoutMs} ms`, "timeout");
  if (code === "UND_ERR_BODY_TIMEOUT") return new UpstreamError("timeout", `the tool sent nothing for ${config.idleTimeoutMs} ms`, "timeout");
  return new UpstreamError("failed", `the tool could not be reached: ${(error as Error).message}`, upstreamFault(error));
}
