import { pipeline } from "node:stream";
import type { FastifyBaseLogger } from "fastify";
import { amountsTotal, apportion, tokenAmounts, type TokenCounts } from "#shared/llm-prices";
import { parseMoney } from "#shared/money";
import { defaultOutputCap, type HttpHandlerConfig } from "../../catalog/catalog-file";
import { GatewayError } from "../gateway-error";
import { answerText, OpenAiEventStream, reportedTokens } from "./openai-answer";
import { llmHold, llmRoute, promptText, readLlmRequest, type LlmModel, type LlmRequest } from "./openai-request";
import { tokenCounter } from "./token-count";
import { isStreamed, jsonResponse, type LlmCharge, type MeteredCall, type ToolResponse, type UpstreamHandler, type UpstreamRequest } from "./types";

type Counted = { tokens: TokenCounts; origin: LlmCharge["origin"] };

/** The models of an OpenAI-compatible tool's catalog entry, their prices in micro-units per 1M tokens. */
export function llmModels(config: HttpHandlerConfig): Map<string, LlmModel> {
  return new Map(
    Object.entries(config.models ?? {}).map(([id, model]) => {
      const input = parseMoney(model.input);
      return [id, { id, tokenizer: model.tokenizer, prices: { input, output: parseMoney(model.output), cachedInput: model.cachedInput ? parseMoney(model.cachedInput) : input } }];
    }),
  );
}

/** `GET /models` and `GET /models/{id}`, answered from the catalog: free, and the upstream is not called. */
function modelsAnswer(toolId: string, models: ReadonlyMap<string, LlmModel>, subpath: string): ToolResponse | undefined {
  const model = (id: string) => ({ id, object: "model", created: 0, owned_by: toolId });
  if (subpath === "/models") return jsonResponse(200, { object: "list", data: [...models.keys()].map(model) });
  if (!subpath.startsWith("/models/")) return undefined;
  const id = decodeURIComponent(subpath.slice("/models/".length));
  if (models.has(id)) return jsonResponse(200, model(id));
  return jsonResponse(404, { error: { code: "unknown_model", message: `this tool does not serve the model "${id.slice(0, 128)}"` } });
}

/** Tokens Tollgate counts for a call whose upstream reported none: the prompt it sent, and `output`. */
async function countedTokens(request: LlmRequest, output: string): Promise<Counted> {
  const count = await tokenCounter(request.model.tokenizer);
  const prompt = promptText(request);
  const input = prompt.parts.reduce((sum, part) => sum + count(part), prompt.extraTokens + prompt.tokenIds);
  return { tokens: { input, cachedInput: 0, output: count(output) }, origin: "counted" };
}

/** The tokens of a whole JSON answer: reported in its `usage`, else counted (undefined for an answer that is not JSON). */
async function answerTokens(request: LlmRequest, body: Buffer | string): Promise<Counted | undefined> {
  let answer: unknown;
  try {
    answer = JSON.parse(body.toString());
  } catch {
    return undefined;
  }
  if (!answer || typeof answer !== "object") return undefined;
  const reported = reportedTokens(request.route, (answer as { usage?: unknown }).usage);
  if (reported) return { tokens: reported, origin: "reported" };
  return countedTokens(request, answerText(request.route, answer as Record<string, unknown>));
}

/** A call to a path the operator prices per call: held its price, and charged it when it succeeds. */
function pricedPathCall(body: Buffer, price: number, upstream: UpstreamHandler): MeteredCall {
  const run: UpstreamHandler = async (sent) => {
    const response = await upstream(sent);
    return isStreamed(response) ? { ...response, units: async () => price } : { ...response, units: price };
  };
  return { body, holdMicros: price, run, charged: () => undefined };
}

const identity = (encoding: string | string[] | undefined) => encoding === undefined || encoding === "identity";

/**
 * A tool that speaks the OpenAI API (decision 051). Each call is read before its hold: `GET
 * /models` is answered from the catalog, other paths than Chat Completions, Responses and
 * Embeddings get 404, a model the tool does not list 400; the hold covers the prompt and the
 * output cap at the model's prices. The call is charged the usage the upstream reports (a streamed
 * Chat Completions call is made to report it) or, when it reports none, the tokens Tollgate counts.
 */
export function openAiMeter(toolId: string, config: HttpHandlerConfig, upstream: UpstreamHandler, log: FastifyBaseLogger): (request: UpstreamRequest & { body: Buffer }) => MeteredCall {
  const models = llmModels(config);
  const pricedPaths = new Map(Object.entries(config.pricedPaths ?? {}).map(([path, price]) => [path, Number(parseMoney(price))]));
  return (request) => {
    if (request.method === "GET" || request.method === "HEAD") {
      const answer = modelsAnswer(toolId, models, request.subpath);
      if (answer) return { answer };
    }
    const perCall = pricedPaths.get(request.subpath);
    if (perCall !== undefined) return pricedPathCall(request.body, perCall, upstream);
    const llm = readLlmRequest(llmRoute(request.method, request.subpath, [...pricedPaths.keys()]), request.body, models, defaultOutputCap(config));
    const hold = llmHold(llm, request.body.length);
    if (hold > BigInt(Number.MAX_SAFE_INTEGER)) throw new GatewayError("bad_request", "the output cap asks for more tokens than any balance could hold");
    let counted: Counted | undefined;
    const costOf = (found: Counted | undefined) => {
      counted = found;
      if (found?.origin === "counted") log.info({ tool: toolId, requestId: request.requestId }, "the upstream reported no usage: Tollgate counted the tokens");
      return found && Number(amountsTotal(tokenAmounts(found.tokens, llm.model.prices)));
    };

    const run: UpstreamHandler = async (sent) => {
      // The answer is read for its usage, so it is asked for uncompressed.
      const response = await upstream({ ...sent, headers: { ...sent.headers, "accept-encoding": "identity" } });
      if (response.status < 200 || response.status >= 300) return response;
      const encoded = !identity(response.headers?.["content-encoding"]);
      if (!isStreamed(response)) return { ...response, units: encoded ? undefined : costOf(await answerTokens(llm, response.body)) };
      if (encoded || !/^text\/event-stream\b/i.test(response.contentType)) return { ...response, units: async () => undefined };
      const events = new OpenAiEventStream(llm.route, llm.addedUsageChunk);
      // A broken upstream breaks the relayed copy with the same error (relay.ts reads it).
      pipeline(response.body, events, () => undefined);
      return {
        ...response,
        body: events,
        observe: () => undefined,
        units: async () => {
          const reported = reportedTokens(llm.route, events.usage);
          if (reported) return costOf({ tokens: reported, origin: "reported" });
          if (events.overflowed) return undefined;
          return costOf(await countedTokens(llm, events.outputText()));
        },
      };
    };
    return {
      body: llm.addedUsageChunk ? Buffer.from(JSON.stringify(llm.body)) : request.body,
      holdMicros: Number(hold),
      run,
      charged: (cost) => counted && { model: llm.model.id, tokens: counted.tokens, origin: counted.origin, amounts: apportion(tokenAmounts(counted.tokens, llm.model.prices), cost) },
    };
  };
}
