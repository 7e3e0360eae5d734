import { describe, expect, it } from "vitest";
import { parseMoney } from "#shared/money";
import { GatewayError } from "../gateway-error";
import { llmHold, llmRoute, readLlmRequest, type LlmModel } from "./openai-request";

const model: LlmModel = { id: "m", tokenizer: "o200k_base", prices: { input: parseMoney("2"), cachedInput: parseMoney("0.5"), output: parseMoney("8") } };
const models = new Map([["m", model]]);
const read = (route: Parameters<typeof readLlmRequest>[0], body: object) => readLlmRequest(route, Buffer.from(JSON.stringify(body)), models, 4096);

function refusal(run: () => unknown): { code: string; status: number; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof GatewayError) return { code: error.code, status: error.status, message: error.message };
    throw error;
  }
  throw new Error("not refused");
}

describe("an OpenAI request read before its hold", () => {
  it("asks for usage on a streamed chat that did not, or that said no, keeping its other stream options", () => {
    expect(read("chat", { model: "m", stream: true }).body.stream_options).toEqual({ include_usage: true });
    const declined = read("chat", { model: "m", stream: true, stream_options: { include_usage: false, include_obfuscation: false } });
    expect(declined).toMatchObject({ addedUsageChunk: true, body: { stream_options: { include_usage: true, include_obfuscation: false } } });
    expect(read("chat", { model: "m", stream: true, stream_options: { include_usage: true } }).addedUsageChunk).toBe(false);
    expect(read("chat", { model: "m" }).body).not.toHaveProperty("stream_options");
    expect(read("responses", { model: "m", stream: true }).body).not.toHaveProperty("stream_options");
  });

  it("holds the output cap the request sets, times its choices, or the default", () => {
    expect(read("chat", { model: "m", max_tokens: 100 }).maxOutputTokens).toBe(100);
    expect(read("chat", { model: "m", max_tokens: 100, max_completion_tokens: 50 }).maxOutputTokens).toBe(50);
    expect(read("chat", { model: "m", max_tokens: 100, n: 3 }).maxOutputTokens).toBe(300);
    expect(read("chat", { model: "m" }).maxOutputTokens).toBe(4096);
    expect(read("responses", { model: "m", max_output_tokens: 7 }).maxOutputTokens).toBe(7);
    expect(read("embeddings", { model: "m", input: "x" }).maxOutputTokens).toBe(0);
  });

  it("holds each byte of the body at the dearer input price, plus the cap at the output price, rounded up", () => {
    // 1,001 bytes at 2 micro-units a token, 3 output tokens at 8.
    expect(llmHold(read("chat", { model: "m", max_tokens: 3 }), 1001)).toBe(2002n + 24n);
    const cheap: LlmModel = { ...model, prices: { input: parseMoney("0.15"), cachedInput: parseMoney("0.15"), output: parseMoney("0.6") } };
    const request = { ...read("chat", { model: "m", max_tokens: 1 }), model: cheap };
    // 10 bytes at 0.15 (1.5 → 2), 1 output token at 0.6 (→ 1).
    expect(llmHold(request, 10)).toBe(3n);
  });

  it("refuses what it cannot price, saying why", () => {
    expect(refusal(() => readLlmRequest("chat", Buffer.from("not json"), models, 1))).toMatchObject({ status: 400, code: "bad_request" });
    expect(refusal(() => read("chat", { messages: [] }))).toEqual({ status: 400, code: "unknown_model", message: 'name a model in "model": this tool serves m' });
    expect(refusal(() => read("chat", { model: "x" }))).toMatchObject({ status: 400, code: "unknown_model" });
    expect(refusal(() => read("chat", { model: "m", max_tokens: 0 }))).toEqual({ status: 400, code: "bad_request", message: "max_tokens must be a whole number of tokens, at least 1" });
    expect(refusal(() => read("chat", { model: "m", max_tokens: "9" }))).toMatchObject({ code: "bad_request" });
    expect(refusal(() => read("chat", { model: "m", n: 0 }))).toMatchObject({ code: "bad_request", message: "n must be a whole number from 1 to 128" });
    for (const route of ["chat", "responses"] as const) {
      expect(refusal(() => read(route, { model: "m", stream: "true" }))).toEqual({ status: 400, code: "bad_request", message: "stream must be true or false (a JSON boolean, not a string or number)" });
    }
    expect(read("chat", { model: "m", stream: null }).stream).toBe(false);
    expect(refusal(() => llmRoute("GET", "/chat/completions", []))).toMatchObject({ status: 404, code: "unknown_path" });
    expect(llmRoute("POST", "/chat/completions/", [])).toBe("chat");
  });
});
