import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { OpenAiEventStream, reportedTokens } from "./openai-answer";

/** Sends `chunks` through a stream and reads what the caller would receive. */
async function relayed(stream: OpenAiEventStream, chunks: (string | Buffer)[]): Promise<string> {
  const out: Buffer[] = [];
  for await (const chunk of Readable.from(chunks.map((c) => (typeof c === "string" ? Buffer.from(c) : c))).pipe(stream)) out.push(chunk as Buffer);
  return Buffer.concat(out).toString("utf8");
}

const USAGE = { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 };

describe("an OpenAI event stream on its way to the caller", () => {
  it("relays every event byte for byte, whatever its line endings and wherever the chunks split it, and reads the usage", async () => {
    const body = [
      ": hello\r\n\r\n",
      `data: ${JSON.stringify({ choices: [{ delta: { content: "Ni hao, 你好" } }] })}\r\n\r\n`,
      `data: ${JSON.stringify({ choices: [], usage: USAGE })}\r\r`,
      "data: [DONE]\n\n",
    ].join("");
    const bytes = Buffer.from(body);
    // Split inside a "\r\n", inside a three-byte character, and everywhere else one byte at a time.
    const chunks = Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
    const stream = new OpenAiEventStream("chat", false);
    expect(await relayed(stream, chunks)).toBe(body);
    expect(reportedTokens("chat", stream.usage)).toEqual({ input: 5, cachedInput: 0, output: 7 });
    expect(stream.outputText()).toBe("Ni hao, 你好");
  });

  it("takes off the usage chunk and the usage fields Tollgate asked for, keeping each event's other lines", async () => {
    const stream = new OpenAiEventStream("chat", true);
    const out = await relayed(stream, [
      `id: 1\ndata: ${JSON.stringify({ choices: [{ delta: { content: "Hi" } }], usage: null })}\n\n`,
      `data: ${JSON.stringify({ choices: [], usage: USAGE })}\n\n`,
      "data: [DONE]\n\n",
    ]);
    expect(out).toBe(`id: 1\ndata: ${JSON.stringify({ choices: [{ delta: { content: "Hi" } }] })}\n\ndata: [DONE]\n\n`);
    expect(stream.usage).toEqual(USAGE);
  });

  it("keeps usage on the last choice's chunk (as some servers send it) but takes the field off that chunk", async () => {
    const stream = new OpenAiEventStream("chat", true);
    const last = { choices: [{ delta: {}, finish_reason: "stop" }], usage: USAGE };
    const out = await relayed(stream, [`data: ${JSON.stringify(last)}\n\n`]);
    expect(out).toBe(`data: ${JSON.stringify({ choices: [{ delta: {}, finish_reason: "stop" }] })}\n\n`);
    expect(stream.usage).toEqual(USAGE);
  });

  it("leaves a caller's own usage chunk and text that merely says \"usage\" alone", async () => {
    const stream = new OpenAiEventStream("chat", false);
    const events = [`data: ${JSON.stringify({ choices: [{ delta: { content: 'the "usage" field' } }] })}\n\n`, `data: ${JSON.stringify({ choices: [], usage: USAGE })}\n\n`];
    expect(await relayed(stream, events)).toBe(events.join(""));
    expect(stream.usage).toEqual(USAGE);
  });

  it("reads the Responses API's usage from response.completed, and its output from the delta events", async () => {
    const usage = { input_tokens: 9, input_tokens_details: { cached_tokens: 4 }, output_tokens: 3 };
    const stream = new OpenAiEventStream("responses", false);
    await relayed(stream, [
      `event: response.created\ndata: ${JSON.stringify({ type: "response.created", response: { usage: null } })}\n\n`,
      `event: response.output_text.delta\ndata: ${JSON.stringify({ type: "response.output_text.delta", delta: "Hel" })}\n\n`,
      `event: response.output_text.delta\ndata: ${JSON.stringify({ type: "response.output_text.delta", delta: "lo" })}\n\n`,
      `event: response.completed\ndata: ${JSON.stringify({ type: "response.completed", response: { usage } })}\n\n`,
    ]);
    expect(reportedTokens("responses", stream.usage)).toEqual({ input: 9, cachedInput: 4, output: 3 });
    expect(stream.outputText()).toBe("Hello");
  });

  it("relays a last event that lacks its blank line as it came", async () => {
    const stream = new OpenAiEventStream("chat", true);
    expect(await relayed(stream, ["data: [DONE]"])).toBe("data: [DONE]");
  });
});

describe("reported usage", () => {
  it("needs whole counts, reads DeepSeek's cache hits, and never counts more cached tokens than input", () => {
    expect(reportedTokens("chat", { prompt_tokens: 10, completion_tokens: 2, prompt_cache_hit_tokens: 6 })).toEqual({ input: 10, cachedInput: 6, output: 2 });
    expect(reportedTokens("chat", { prompt_tokens: 10, completion_tokens: 2, prompt_tokens_details: { cached_tokens: 60 } })).toEqual({ input: 10, cachedInput: 10, output: 2 });
    expect(reportedTokens("chat", { prompt_tokens: 10 })).toBeUndefined();
    expect(reportedTokens("chat", { prompt_tokens: -1, completion_tokens: 2 })).toBeUndefined();
    expect(reportedTokens("chat", { prompt_tokens: 1.5, completion_tokens: 2 })).toBeUndefined();
    expect(reportedTokens("embeddings", { prompt_tokens: 8, total_tokens: 8 })).toEqual({ input: 8, cachedInput: 0, output: 0 });
    expect(reportedTokens("chat", null)).toBeUndefined();
  });
});
