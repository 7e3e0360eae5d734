import type { IncomingHttpHeaders } from "node:http";
import type { Readable } from "node:stream";
import type { TokenAmounts, TokenCounts } from "#shared/llm-prices";
import type { UpstreamFault } from "../../../lib/counters";

export interface ToolRequest {
  method: string;
  /** Whatever followed /v1/tools/{id}, still percent-encoded and checked (upstream-path.ts), e.g. "/forecast" ("" for none). */
  subpath: string;
  /** The raw query string without "?" (empty when none). */
  query: string;
  contentType: string | undefined;
  accept: string | undefined;
  body: Buffer;
  /** Aborted when the caller goes away or the tool's time runs out. */
  signal: AbortSignal;
}

/** A call on its way to an HTTP upstream: its body may still be arriving. */
export interface UpstreamRequest extends Omit<ToolRequest, "body"> {
  body: Buffer | Readable;
  /** The caller's headers; what reaches the upstream is filtered (http-upstream.ts). */
  headers: IncomingHttpHeaders;
  /** Tollgate's id of the call, sent to the upstream as x-request-id. */
  requestId: string;
}

export interface ToolResponse {
  status: number;
  contentType: string;
  /** Headers to pass on to the caller (an upstream's, already filtered). */
  headers?: Record<string, string | string[]>;
  body: Buffer | string;
  /** How many priced units the call used, for tools priced per unit. */
  units?: number;
}

/** An answer relayed as it arrives; its units are known only once its body has ended. */
export interface StreamedToolResponse extends Omit<ToolResponse, "body" | "units"> {
  /** Read by one consumer only, which shows each chunk to `observe` as it passes. */
  body: Readable;
  observe(chunk: Buffer): void;
  /** The units reported, asked once the body has ended (undefined when none were). */
  units(): Promise<number | undefined>;
}

export type ToolHandler = (request: ToolRequest) => Promise<ToolResponse>;
export type UpstreamHandler = (request: UpstreamRequest) => Promise<ToolResponse | StreamedToolResponse>;

/** What an LLM call was charged for: its model, its tokens and what each direction cost (micro-units). */
export interface LlmCharge {
  model: string;
  tokens: TokenCounts;
  amounts: TokenAmounts;
  /** Whether the upstream reported the tokens, or Tollgate counted them. */
  origin: "reported" | "counted";
}

/**
 * A call priced by what it asks (an OpenAI-compatible tool's), read whole before its hold: either
 * answered here, free (no hold, no upstream call), or held `holdMicros` and run with `body`; its
 * answer's units are micro-units, and `charged` tells what the cost it was charged paid for.
 */
export type MeteredCall =
  | { answer: ToolResponse }
  | { body: Buffer; holdMicros: number; run: UpstreamHandler; charged(cost: bigint): LlmCharge | undefined };

export const isStreamed = (response: ToolResponse | StreamedToolResponse): response is StreamedToolResponse => typeof response.units === "function";

const CONNECT_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_CONNECT_TIMEOUT"]);
const RESET_CODES = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "ECONNABORTED"]);
const TIMEOUT_CODES = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "ETIMEDOUT"]);

/** The fault an error talking to an upstream shows, by its code (or its cause's: undici wraps some). */
export function upstreamFault(error: unknown): UpstreamFault {
  if (error instanceof UpstreamError && error.fault) return error.fault;
  const code = (error as { code?: string } | null)?.code ?? (error as { cause?: { code?: string } } | null)?.cause?.code ?? "";
  if (CONNECT_CODES.has(code)) return "connect";
  if (RESET_CODES.has(code)) return "reset";
  if (TIMEOUT_CODES.has(code)) return "timeout";
  return "other";
}

/**
 * A failure of the tool itself, as opposed to a bad request: mapped to 502 or 504. `fault`: what
 * broke at the upstream; none when the call was given up on this side (the caller left).
 */
export class UpstreamError extends Error {
  constructor(
    public readonly kind: "failed" | "timeout",
    message: string,
    public readonly fault?: UpstreamFault,
  ) {
    super(message);
    this.name = "UpstreamError";
  }
}

/** Whether the tool's total timeout cut its answer: the gateway's own limit on a call, not the tool going silent. */
export function cutByTotalTimeout(error: Error): boolean {
  return error instanceof UpstreamError && error.kind === "timeout";
}

/** Whether a tool's answer was cut by one of its timeouts (total, or idle between chunks) rather than broken by the tool. */
export function upstreamTimedOut(error: Error): boolean {
  return cutByTotalTimeout(error) || (error as { code?: string }).code === "UND_ERR_BODY_TIMEOUT";
}

export function jsonResponse(status: number, value: unknown, units?: number): ToolResponse {
  return { status, contentType: "application/json; charset=utf-8", body: JSON.stringify(value), units };
}

export function readJson(request: ToolRequest): { ok: true; value: Record<string, unknown> } | { ok: false; response: ToolResponse } {
  try {
    const value: unknown = JSON.parse(request.body.toString("utf8") || "{}");
    if (value && typeof value === "object" && !Array.isArray(value)) return { ok: true, value: value as Record<string, unknown> };
  } catch {
    /* fall through */
  }
  return { ok: false, response: jsonResponse(400, { error: { code: "invalid_body", message: "send a JSON object" } }) };
}
