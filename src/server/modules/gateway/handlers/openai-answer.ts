import { StringDecoder } from "node:string_decoder";
import { Transform, type TransformCallback } from "node:stream";
import type { TokenCounts } from "#shared/llm-prices";
import type { LlmRoute } from "./openai-request";
import { unitsValue } from "./units-report";

/**
 * A stream's event data is kept as it passes, unparsed, to count its output if no usage comes;
 * past this many characters it is parsed down to the output text it holds (a fiftieth of it or
 * less), so a long stream holds little more than its text, and a short one is never parsed.
 */
const COMPACT_AFTER_CHARS = 256 * 1024;
/** Output text kept for counting; past it, the call is charged its hold. */
export const MAX_KEPT_TEXT_CHARS = 16 * 1024 * 1024;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * The tokens an upstream reported: Chat Completions' and Embeddings' `prompt_tokens` and
 * `completion_tokens`, the Responses API's `input_tokens` and `output_tokens`, with the cached
 * input tokens where given (`*_tokens_details.cached_tokens`, or DeepSeek's `prompt_cache_hit_tokens`).
 * Undefined when the usage lacks a count the route needs.
 */
export function reportedTokens(route: LlmRoute, usage: unknown): TokenCounts | undefined {
  if (!isObject(usage)) return undefined;
  const responses = route === "responses";
  const input = unitsValue(usage[responses ? "input_tokens" : "prompt_tokens"]);
  const output = route === "embeddings" ? 0 : unitsValue(usage[responses ? "output_tokens" : "completion_tokens"]);
  if (input === undefined || output === undefined) return undefined;
  const details = usage[responses ? "input_tokens_details" : "prompt_tokens_details"];
  const cachedInput = (isObject(details) ? unitsValue(details.cached_tokens) : undefined) ?? unitsValue(usage.prompt_cache_hit_tokens) ?? 0;
  return { input, cachedInput: Math.min(cachedInput, input), output };
}

/** Text the model wrote in a chat message or delta: content, reasoning, refusal, tool calls. */
function chatText(message: unknown, into: string[]): void {
  if (!isObject(message)) return;
  for (const field of ["content", "reasoning_content", "reasoning", "refusal"]) {
    const value = message[field];
    if (typeof value === "string") into.push(value);
  }
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls) {
      const fn = isObject(call) ? call.function : undefined;
      if (isObject(fn)) for (const field of ["name", "arguments"]) if (typeof fn[field] === "string") into.push(fn[field]);
    }
  }
}

/** Text a Responses API output item holds: message text, function arguments, reasoning summaries. */
function responseItemText(item: unknown, into: string[]): void {
  if (!isObject(item)) return;
  if (typeof item.arguments === "string") into.push(item.arguments);
  for (const list of [item.content, item.summary]) {
    if (!Array.isArray(list)) continue;
    for (const part of list) if (isObject(part) && typeof part.text === "string") into.push(part.text);
  }
}

/** The output text of a whole (not streamed) answer. */
export function answerText(route: LlmRoute, answer: Json): string {
  const parts: string[] = [];
  if (route === "chat" && Array.isArray(answer.choices)) for (const choice of answer.choices) if (isObject(choice)) chatText(choice.message, parts);
  if (route === "responses" && Array.isArray(answer.output)) for (const item of answer.output) responseItemText(item, parts);
  return parts.join("");
}

/** The output text of one streamed event's data. */
function eventText(route: LlmRoute, event: Json, into: string[]): void {
  if (route === "chat" && Array.isArray(event.choices)) for (const choice of event.choices) if (isObject(choice)) chatText(choice.delta, into);
  if (route === "responses" && typeof event.type === "string" && event.type.endsWith(".delta") && typeof event.delta === "string") into.push(event.delta);
}

const parse = (data: string): Json | undefined => {
  try {
    const value: unknown = JSON.parse(data);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Relays an OpenAI event stream event by event, byte for byte, reading the usage as it passes:
 * Chat Completions' usage chunk, the Responses API's `response.completed` (or `.incomplete`,
 * `.failed`). When Tollgate added `include_usage`, the usage chunk it caused is not relayed and the
 * `usage` field it adds to the other chunks is taken off, so the caller sees the stream it asked
 * for. The events' data is kept (COMPACT_AFTER_CHARS) to count the output if no usage comes.
 */
export class OpenAiEventStream extends Transform {
  usage: unknown;
  private readonly decoder = new StringDecoder("utf8");
  private pending = "";
  /** The current event's lines, as received, and its data. */
  private raw = "";
  private data: string[] = [];
  private kept: string[] = [];
  private keptChars = 0;
  /** Output text of the events compacted so far. */
  private readonly text: string[] = [];
  private textChars = 0;
  /** More output passed than is kept for counting. */
  overflowed = false;

  constructor(
    private readonly route: LlmRoute,
    private readonly dropUsageChunk: boolean,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    let text = this.pending + this.decoder.write(chunk);
    // A "\r" at the end may be the first half of "\r\n": wait for the next chunk.
    const heldCr = text.endsWith("\r");
    if (heldCr) text = text.slice(0, -1);
    let out = "";
    let start = 0;
    for (const match of text.matchAll(/\r\n|\r|\n/g)) {
      out += this.line(text.slice(start, match.index), match[0]);
      start = match.index + match[0].length;
    }
    this.pending = text.slice(start) + (heldCr ? "\r" : "");
    callback(null, out ? Buffer.from(out, "utf8") : undefined);
  }

  override _flush(callback: TransformCallback): void {
    const rest = this.pending + this.decoder.end();
    this.pending = "";
    // A last event without its blank line is relayed as it came.
    let out = rest ? this.line(rest, "") : "";
    if (this.raw) out += this.event();
    callback(null, out ? Buffer.from(out, "utf8") : undefined);
  }

  /** Output text of the events that passed, for counting. */
  outputText(): string {
    this.compact();
    return this.text.join("");
  }

  private compact(): void {
    const parts: string[] = [];
    for (const data of this.kept) {
      const event = parse(data);
      if (event) eventText(this.route, event, parts);
    }
    this.kept = [];
    this.keptChars = 0;
    for (const part of parts) this.textChars += part.length;
    if (this.textChars > MAX_KEPT_TEXT_CHARS) {
      this.overflowed = true;
      this.text.length = 0;
      return;
    }
    this.text.push(...parts);
  }

  private line(line: string, ending: string): string {
    this.raw += line + ending;
    if (line === "") return this.event();
    if (line.startsWith("data:")) this.data.push(line.slice(line[5] === " " ? 6 : 5));
    return "";
  }

  /** The event just ended, as it is relayed ("" when it is not). */
  private event(): string {
    const raw = this.raw;
    const data = this.data.join("\n");
    this.raw = "";
    this.data = [];
    if (!data || data === "[DONE]") return raw;
    this.keep(data);
    if (!data.includes('"usage"')) return raw;
    const event = parse(data);
    if (!event) return raw;
    const usage = this.route === "responses" ? (isObject(event.response) ? event.response.usage : undefined) : event.usage;
    if (isObject(usage)) this.usage = usage;
    if (!this.dropUsageChunk || !("usage" in event)) return raw;
    if (Array.isArray(event.choices) && event.choices.length === 0) return "";
    delete event.usage;
    const otherLines = raw.split(/\r\n|\r|\n/).filter((line) => line !== "" && !line.startsWith("data:"));
    return [...otherLines, `data: ${JSON.stringify(event)}`, "", ""].join("\n");
  }

  private keep(data: string): void {
    if (this.overflowed) return;
    this.kept.push(data);
    this.keptChars += data.length;
    if (this.keptChars > COMPACT_AFTER_CHARS) this.compact();
  }
}
