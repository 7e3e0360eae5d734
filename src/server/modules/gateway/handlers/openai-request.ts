import { tokensCost, type ModelPrices, type TokenizerName } from "#shared/llm-prices";
import { GatewayError } from "../gateway-error";

/** The OpenAI API routes an OpenAI-compatible tool serves and charges. */
export type LlmRoute = "chat" | "responses" | "embeddings";

export interface LlmModel {
  id: string;
  prices: ModelPrices;
  tokenizer: TokenizerName;
}

/** A priced request, read and checked before its hold. */
export interface LlmRequest {
  route: LlmRoute;
  model: LlmModel;
  /** The parsed JSON body, as it goes upstream. */
  body: Record<string, unknown>;
  /** Output tokens the call may write at most: what its hold covers. */
  maxOutputTokens: number;
  /** Whether the answer streams (server-sent events). */
  stream: boolean;
  /** Tollgate asked for the usage chunk (`stream_options.include_usage`): the caller did not, and must not see it. */
  addedUsageChunk: boolean;
}

const ROUTES: Record<string, LlmRoute> = { "/chat/completions": "chat", "/responses": "responses", "/embeddings": "embeddings" };
export const SERVED_PATHS = "POST /chat/completions, POST /responses, POST /embeddings and GET /models";

/** The OpenAI route of a call (`/models` is answered apart), or 404 for a path this tool neither serves nor prices. */
export function llmRoute(method: string, subpath: string, pricedPaths: readonly string[]): LlmRoute {
  const route = method === "POST" ? ROUTES[subpath.replace(/\/+$/, "")] : undefined;
  if (!route) {
    const priced = pricedPaths.length > 0 ? ` (and ${pricedPaths.join(", ")})` : "";
    throw new GatewayError("unknown_path", `this tool serves ${SERVED_PATHS}${priced}, not ${method} ${subpath || "/"}`);
  }
  return route;
}

function outputCap(body: Record<string, unknown>, field: string): number | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw new GatewayError("bad_request", `${field} must be a whole number of tokens, at least 1`);
  }
  return value;
}

/**
 * Whether a request asks for a stream. Anything but a JSON boolean (or null) is refused: an
 * upstream reading `"true"` as true would stream a call read here as whole, without the usage
 * chunk Tollgate asks for, and it would be charged by count instead of its reported usage.
 */
function streamed(body: Record<string, unknown>): boolean {
  const value = body.stream;
  if (value === undefined || value === null) return false;
  if (typeof value !== "boolean") throw new GatewayError("bad_request", "stream must be true or false (a JSON boolean, not a string or number)");
  return value;
}

/** How many answers a chat request asks for (`n`): each may write up to the output cap. */
function choices(body: Record<string, unknown>): number {
  const n = body.n;
  if (n === undefined || n === null) return 1;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > 128) throw new GatewayError("bad_request", "n must be a whole number from 1 to 128");
  return n;
}

/**
 * Reads a call's JSON body: its model must be one the tool lists (400 otherwise, before any hold),
 * its output cap (`max_completion_tokens`, `max_tokens`, `max_output_tokens`) a whole number, and
 * `stream`, when present, a boolean.
 * A streamed Chat Completions request that did not ask for usage is made to (`include_usage`).
 */
export function readLlmRequest(route: LlmRoute, raw: Buffer, models: ReadonlyMap<string, LlmModel>, defaultMaxOutputTokens: number): LlmRequest {
  let body: unknown;
  try {
    body = JSON.parse(raw.toString("utf8"));
  } catch {
    throw new GatewayError("bad_request", "send the request as a JSON object");
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) throw new GatewayError("bad_request", "send the request as a JSON object");
  const request = body as Record<string, unknown>;
  const served = [...models.keys()].join(", ");
  if (typeof request.model !== "string") throw new GatewayError("unknown_model", `name a model in "model": this tool serves ${served}`);
  const model = models.get(request.model);
  if (!model) throw new GatewayError("unknown_model", `this tool does not serve the model "${request.model.slice(0, 128)}": it serves ${served}`);

  const stream = streamed(request) && route !== "embeddings";
  let maxOutputTokens = 0;
  if (route === "chat") {
    maxOutputTokens = (outputCap(request, "max_completion_tokens") ?? outputCap(request, "max_tokens") ?? defaultMaxOutputTokens) * choices(request);
  } else if (route === "responses") {
    maxOutputTokens = outputCap(request, "max_output_tokens") ?? defaultMaxOutputTokens;
  }
  const options = request.stream_options;
  const askedForUsage = options !== null && typeof options === "object" && (options as Record<string, unknown>).include_usage === true;
  const addedUsageChunk = route === "chat" && stream && !askedForUsage;
  if (addedUsageChunk) request.stream_options = { ...(typeof options === "object" && options !== null ? options : {}), include_usage: true };
  return { route, model, body: request, maxOutputTokens, stream, addedUsageChunk };
}

/**
 * The most a call may cost, held before it runs: each byte of its body counted as an input token
 * (a token is at least one byte of text, so this covers the prompt without running a tokenizer
 * first), at the dearer of the model's input prices, plus its output cap at the output price.
 */
export function llmHold(request: LlmRequest, bodyBytes: number): bigint {
  const { prices } = request.model;
  const inputPrice = prices.input > prices.cachedInput ? prices.input : prices.cachedInput;
  const hold = tokensCost(bodyBytes, inputPrice) + tokensCost(request.maxOutputTokens, prices.output);
  return hold > 0n ? hold : 1n;
}

/** Keys whose values are data (images, audio, files), not text the model reads as tokens. */
const NOT_TEXT = new Set(["image_url", "url", "data", "file_data", "input_audio", "image"]);
/** Tokens a chat message costs besides its text (OpenAI's counting guide), and those priming the answer. */
const TOKENS_PER_MESSAGE = 3;
const TOKENS_PRIMING_ANSWER = 3;

function collectText(value: unknown, into: string[]): void {
  if (typeof value === "string") into.push(value);
  else if (Array.isArray(value)) for (const item of value) collectText(item, into);
  else if (value && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) if (!NOT_TEXT.has(key)) collectText(item, into);
  }
}

/**
 * The prompt's texts to count one by one, and the tokens it costs besides: for a call whose
 * upstream reported no usage. A chat message costs its role's and its content's tokens and 3
 * more, and the answer is primed with 3 (OpenAI's counting guide).
 */
export function promptText(request: LlmRequest): { parts: string[]; extraTokens: number; tokenIds: number } {
  const parts: string[] = [];
  const { body } = request;
  let extraTokens = 0;
  let tokenIds = 0;
  if (request.route === "chat") {
    const messages = Array.isArray(body.messages) ? body.messages : [];
    collectText(messages, parts);
    extraTokens = messages.length * TOKENS_PER_MESSAGE + TOKENS_PRIMING_ANSWER;
  } else if (request.route === "responses") {
    collectText(body.instructions, parts);
    collectText(body.input, parts);
  } else {
    // Embeddings may send token ids (arrays of numbers) instead of text: each is one token.
    const inputs = Array.isArray(body.input) ? body.input : [body.input];
    for (const input of inputs) {
      if (typeof input === "number") tokenIds += 1;
      else if (Array.isArray(input) && input.every((item) => typeof item === "number")) tokenIds += input.length;
      else collectText(input, parts);
    }
  }
  if (body.tools !== undefined) parts.push(JSON.stringify(body.tools));
  return { parts, extraTokens, tokenIds };
}
