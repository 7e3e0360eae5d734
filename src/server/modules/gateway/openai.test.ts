import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { and, eq, lt } from "drizzle-orm";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spendLimitHoldMessage } from "#shared/gateway";
import { formatMoney, parseMoney } from "#shared/money";
import { ledgerEntries, llmUsage, usageRecords, users } from "../../db/schema/index";
import { adminCli } from "../../testing/admin-cli";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { createUserWithSession } from "../../testing/users";
import { verifyLedger } from "../ledger/verify";
import { countTokens as gpt4oTokens } from "gpt-tokenizer/model/gpt-4o";

/**
 * OpenAI-compatible tools (issue 36, decision 051), called with the official `openai` npm package at
 * its defaults through a listening gateway, against a local fake upstream that speaks the protocol
 * (JSON and server-sent events). The Python SDK is not tested here: PyPI cannot be reached from
 * this project's machines and Debian has no python3-openai, so no test runs it.
 */
let t: TestApp;
let gateway: string;
let upstream: http.Server;
let upstreamBase: string;
/** Every request the fake upstream received, in order. */
const received: { url: string; body: Record<string, unknown> }[] = [];

/** What the fake upstream reports for every answer (capped at the request's max_tokens). */
const USAGE = { prompt_tokens: 1234, completion_tokens: 567, total_tokens: 1801, prompt_tokens_details: { cached_tokens: 1000 } };
/** A prompt longer than the 1,234 tokens reported: a hold counts each byte as a token at most. */
const PROMPT = "Tell me how a toll gate meters its road. ".repeat(32);
const MESSAGES = [{ role: "user" as const, content: PROMPT }];
/** A prompt the fake answers at length: "Hello there" and LONG_DELTAS more words, one event each. */
const LONG_PROMPT = "Tell me at length.";
const LONG_DELTAS = 3000;
/** ¥2.00 and ¥8.00 per 1M tokens, no cache price: its cached tokens cost the input price. */
const LARGE = { input: "2.00", output: "8.00" };
/** ¥0.15, ¥0.075 cached and ¥0.60 per 1M tokens: a token costs a fraction of a micro-unit. */
const MINI = { input: "0.15", cachedInput: "0.075", output: "0.60" };
/** An embeddings model: ¥0.50 per 1M input tokens. */
const EMBED = { input: "0.50", output: "0" };

const sse = (res: http.ServerResponse) => res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
const event = (value: unknown) => `data: ${typeof value === "string" ? value : JSON.stringify(value)}\n\n`;

function usageFor(body: Record<string, unknown>) {
  const cap = (body.max_completion_tokens ?? body.max_tokens) as number | undefined;
  const completion = Math.min(USAGE.completion_tokens, cap ?? Infinity);
  return { ...USAGE, completion_tokens: completion, total_tokens: USAGE.prompt_tokens + completion };
}

/** Chat Completions as OpenAI answers it: the usage chunk (empty choices) only when asked, then `usage: null` on every chunk. */
function chatCompletion(body: Record<string, unknown>, res: http.ServerResponse, reportsUsage: boolean) {
  const base = { id: "chatcmpl-1", created: 1_700_000_000, model: body.model, system_fingerprint: "fp_1" };
  const usage = usageFor(body);
  if (!body.stream) {
    res.writeHead(200, { "content-type": "application/json" });
    const message = { role: "assistant", content: "Hello there", refusal: null };
    return res.end(JSON.stringify({ ...base, object: "chat.completion", choices: [{ index: 0, message, finish_reason: "stop", logprobs: null }], ...(reportsUsage ? { usage } : {}) }));
  }
  const includeUsage = reportsUsage && (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
  const chunk = (delta: object, finish: string | null = null) => ({
    ...base,
    object: "chat.completion.chunk",
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    ...(includeUsage ? { usage: null } : {}),
  });
  sse(res);
  res.write(event(chunk({ role: "assistant", content: "", refusal: null })));
  res.write(event(chunk({ content: "Hello" })));
  res.write(": keep-alive\n\n");
  res.write(event(chunk({ content: " there" })));
  // A long answer: more events than a stream keeps unparsed (openai-answer.ts compacts them).
  if ((body.messages as { content: string }[])[0]!.content === LONG_PROMPT) for (let i = 0; i < LONG_DELTAS; i++) res.write(event(chunk({ content: " toll" })));
  res.write(event(chunk({}, "stop")));
  if (includeUsage) res.write(event({ ...base, object: "chat.completion.chunk", choices: [], usage }));
  res.end(event("[DONE]"));
}

/** A stream the upstream breaks after " there", once the test has seen it reach the caller. */
let cutNow: () => void = () => undefined;
function cutStream(body: Record<string, unknown>, res: http.ServerResponse) {
  const chunk = (delta: object) => ({ id: "chatcmpl-cut", object: "chat.completion.chunk", created: 1_700_000_000, model: body.model, choices: [{ index: 0, delta, finish_reason: null }] });
  sse(res);
  res.write(event(chunk({ role: "assistant", content: "" })) + event(chunk({ content: "Hello" })) + event(chunk({ content: " there" })));
  new Promise<void>((resolve) => (cutNow = resolve)).then(() => res.socket?.destroy(), () => undefined);
}

/** The Responses API: usage in the final response, and in the stream's `response.completed` event. */
function responses(body: Record<string, unknown>, res: http.ServerResponse) {
  const output = Math.min(USAGE.completion_tokens, (body.max_output_tokens as number | undefined) ?? Infinity);
  const usage = { input_tokens: 1234, input_tokens_details: { cached_tokens: 1000 }, output_tokens: output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 1234 + output };
  const message = { type: "message", id: "msg_1", status: "completed", role: "assistant", content: [{ type: "output_text", text: "Hello there", annotations: [] }] };
  const response = (status: string, done: boolean) => ({
    id: "resp_1",
    object: "response",
    created_at: 1_700_000_000,
    status,
    model: body.model,
    output: done ? [message] : [],
    usage: done ? usage : null,
  });
  if (!body.stream) {
    res.writeHead(200, { "content-type": "application/json" });
    return res.end(JSON.stringify(response("completed", true)));
  }
  sse(res);
  const named = (type: string, data: object, n: number) => `event: ${type}\n${event({ type, sequence_number: n, ...data })}`;
  res.write(named("response.created", { response: response("in_progress", false) }, 0));
  res.write(named("response.output_text.delta", { item_id: "msg_1", output_index: 0, content_index: 0, delta: "Hello" }, 1));
  res.write(named("response.output_text.delta", { item_id: "msg_1", output_index: 0, content_index: 0, delta: " there" }, 2));
  res.end(named("response.completed", { response: response("completed", true) }, 3));
}

/** Embeddings, as floats or (the SDK's default) base64 of little-endian float32. */
function embeddings(body: Record<string, unknown>, res: http.ServerResponse) {
  const vector = [0.25, -0.5, 1];
  const embedding = body.encoding_format === "base64" ? Buffer.from(new Float32Array(vector).buffer).toString("base64") : vector;
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ object: "list", model: body.model, data: [{ object: "embedding", index: 0, embedding }], usage: { prompt_tokens: 8, total_tokens: 8 } }));
}

function handle(req: http.IncomingMessage, res: http.ServerResponse, raw: Buffer) {
  const url = req.url ?? "";
  const body = raw.length > 0 ? (JSON.parse(raw.toString("utf8")) as Record<string, unknown>) : {};
  received.push({ url, body });
  if (url === "/v1/chat/completions") return chatCompletion(body, res, true);
  if (url === "/no-usage/v1/chat/completions") return chatCompletion(body, res, false);
  if (url === "/cut/v1/chat/completions") return cutStream(body, res);
  if (url === "/bad-key/v1/chat/completions") {
    // What OpenAI answers a request made with a key it does not know: here, the operator's.
    const error = { message: "Incorrect API key provided: sk-op***789. You can find your API key at https://platform.openai.com/account/api-keys.", type: "invalid_request_error", param: null, code: "invalid_api_key" };
    return res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error }));
  }
  if (url === "/v1/responses") return responses(body, res);
  if (url === "/v1/embeddings") return embeddings(body, res);
  if (url === "/v1/audio/speech") return res.writeHead(200, { "content-type": "audio/mpeg" }).end(Buffer.from("ID3 fake mp3"));
  res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: `no route ${url}` } }));
}

function writeCatalog(base: string): string {
  const tool = (id: string, url: string, models: object, pricedPaths?: object) => ({
    id,
    name: id,
    description: `${id} tool`,
    category: "llm",
    rateLimitPerMinute: 100_000,
    handler: { type: "http", url: `${base}${url}`, protocol: "openai", models, pricedPaths },
  });
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "openai-")), "tools.json");
  fs.writeFileSync(file, JSON.stringify({ tools: [tool("llm", "/v1", { "tg-large": LARGE, "tg-mini": MINI, "tg-embed": EMBED }, { "/audio/speech": "0.01" }), tool("no-usage", "/no-usage/v1", { "tg-large": LARGE }), tool("cut", "/cut/v1", { "tg-large": LARGE }), tool("bad-key", "/bad-key/v1", { "tg-large": LARGE })] }));
  return file;
}

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => handle(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  upstreamBase = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  t = await createTestApp({ TOOLS_CATALOG: writeCatalog(upstreamBase) });
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  gateway = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await t.close();
  upstream.closeAllConnections();
  upstream.close();
});

async function funded(balance: string, key: { spendLimit?: string } = {}) {
  const user = await createUserWithSession(t, { balance });
  const res = await t.app.inject({ method: "POST", url: "/api/v1/console/keys", headers: user.headers, payload: { name: "llm", ...key } });
  expect(res.statusCode).toBe(201);
  return { userId: user.userId, headers: user.headers, secret: res.json().secret as string };
}

/** The official client at its defaults, pointed at a tool: the only change a user makes is the base URL and key. */
const client = (secret: string, toolId = "llm") => new OpenAI({ apiKey: secret, baseURL: `${gateway}/v1/tools/${toolId}` });
/** The same client straight to the fake upstream, for what a caller sees without Tollgate. */
const direct = (toolPath = "/v1") => new OpenAI({ apiKey: "upstream-key", baseURL: `${upstreamBase}${toolPath}` });

async function balanceOf(userId: number): Promise<bigint> {
  const [row] = await t.database.db.select({ balance: users.balance }).from(users).where(eq(users.id, userId));
  return row!.balance;
}

/** The call's usage row once settled (a stream settles as its end reaches the caller), with what its tokens cost. */
async function chargeOf(requestId: string) {
  for (let tries = 0; tries < 600; tries++) {
    const [row] = await t.database.db.select().from(usageRecords).leftJoin(llmUsage, eq(llmUsage.usageId, usageRecords.id)).where(eq(usageRecords.requestId, requestId));
    if (row && row.usage_records.status !== "pending") return { usage: row.usage_records, llm: row.llm_usage };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`call ${requestId} was never settled`);
}

async function expectLedgerConsistent() {
  expect((await verifyLedger(t.database.db)).problems).toEqual([]);
}

/** For USAGE on tg-large: 234 uncached and 1,000 cached input tokens at ¥2.00/1M, 567 output at ¥8.00/1M. */
const LARGE_AMOUNTS = { inputAmount: 468n, cachedInputAmount: 2000n, outputAmount: 4536n };
const LARGE_COST = 7004n;

describe("an OpenAI-compatible tool, called with the official openai SDK", () => {
  it("streams a chat completion that did not ask for usage exactly as the upstream would, and charges exactly the usage it reported", async () => {
    const { userId, secret } = await funded("5");
    const params = { model: "tg-large", messages: MESSAGES, stream: true as const };
    const { data: stream, response } = await client(secret).chat.completions.create(params).withResponse();
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const requestId = response.headers.get("x-request-id")!;

    // Tollgate asked the upstream for usage...
    expect(received.at(-1)!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    // ...and the caller sees the stream it would have seen without Tollgate: no usage chunk, no usage field.
    const without: unknown[] = [];
    for await (const chunk of await direct().chat.completions.create(params)) without.push(chunk);
    expect(chunks).toEqual(without);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("")).toBe("Hello there");
    expect(chunks.some((chunk) => "usage" in chunk)).toBe(false);

    const { usage, llm } = await chargeOf(requestId);
    expect(usage).toMatchObject({ status: "succeeded", amount: LARGE_COST });
    expect(llm).toMatchObject({ model: "tg-large", inputTokens: 1234, cachedInputTokens: 1000, outputTokens: 567, ...LARGE_AMOUNTS, origin: "reported" });
    expect(await balanceOf(userId)).toBe(parseMoney("5") - LARGE_COST);
    await expectLedgerConsistent();
  });

  it("streams the usage chunk to a caller who asked for it, as sent, and charges exactly its usage", async () => {
    const { userId, secret } = await funded("5");
    const params = { model: "tg-mini", messages: MESSAGES, stream: true as const, stream_options: { include_usage: true } };
    const { data: stream, response } = await client(secret).chat.completions.create(params).withResponse();
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const without: unknown[] = [];
    for await (const chunk of await direct().chat.completions.create(params)) without.push(chunk);
    expect(chunks).toEqual(without);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: USAGE });

    // 234 uncached input tokens at ¥0.15/1M (35.1 → 36), 1,000 cached at ¥0.075/1M (75), 567 output at ¥0.60/1M (340.2 → 341).
    const { usage, llm } = await chargeOf(response.headers.get("x-request-id")!);
    expect(usage).toMatchObject({ status: "succeeded", amount: 452n });
    expect(llm).toMatchObject({ model: "tg-mini", inputAmount: 36n, cachedInputAmount: 75n, outputAmount: 341n, origin: "reported" });
    expect(await balanceOf(userId)).toBe(parseMoney("5") - 452n);
    await expectLedgerConsistent();
  });

  it("answers a chat completion that is not streamed as the upstream sent it, its cost in the cost header", async () => {
    const { userId, secret } = await funded("5");
    const { data, response } = await client(secret).chat.completions.create({ model: "tg-large", messages: MESSAGES }).withResponse();
    expect(data.choices[0]!.message.content).toBe("Hello there");
    expect(data.usage).toEqual(USAGE);
    expect(received.at(-1)!.body).not.toHaveProperty("stream_options");
    expect(response.headers.get("x-tollgate-cost")).toBe(formatMoney(LARGE_COST));
    const requestId = response.headers.get("x-request-id")!;
    const { llm } = await chargeOf(requestId);
    expect(llm).toMatchObject({ inputTokens: 1234, outputTokens: 567, ...LARGE_AMOUNTS, origin: "reported" });
    expect(await balanceOf(userId)).toBe(parseMoney("5") - LARGE_COST);
    // The operator's commands count the call's tokens as its units, as billing details do.
    const shown = JSON.parse((await adminCli(t)("calls", "show", requestId, "--json")).out);
    expect([shown.units, shown.amount]).toEqual([1801, formatMoney(LARGE_COST)]);
    const user = JSON.parse((await adminCli(t)("users", "show", String(userId), "--json")).out);
    expect(user.lastCalls.map((c: { requestId: string; units: number }) => [c.requestId, c.units])).toEqual([[requestId, 1801]]);
  });

  it("answers 502 upstream_failed, charging nothing, when the upstream refuses the operator's key: not a 401 the SDK would take for the caller's key", async () => {
    const { userId, secret } = await funded("5");
    const error = await client(secret, "bad-key")
      .chat.completions.create({ model: "tg-large", messages: MESSAGES })
      .then(() => null, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error).not.toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error).toMatchObject({ status: 502, code: "upstream_failed" });
    // Nothing of the upstream's words about the operator's key reaches the caller.
    expect(JSON.stringify((error as InstanceType<typeof OpenAI.APIError>).error)).not.toContain("sk-op");
    const requestId = (error as InstanceType<typeof OpenAI.APIError>).requestID ?? (error as InstanceType<typeof OpenAI.APIError>).headers?.get("x-request-id");
    expect((await chargeOf(requestId!)).usage.status).toBe("refunded");
    expect(await balanceOf(userId)).toBe(parseMoney("5"));
    // The operator sees the upstream's status and its answer.
    await t.app.callLog.drain();
    const shown = JSON.parse((await adminCli(t)("calls", "show", requestId!, "--json")).out);
    expect(shown).toMatchObject({ status: "refunded", amount: "0.00", log: { outcome: "upstream_failed", httpStatus: 502, upstreamStatus: 401, error: { code: "upstream_failed" } } });
    expect(shown.log.upstreamErrorExcerpt).toContain("invalid_api_key");
    // It used no tokens: its usage row keeps the micro-units it held, which are no count of anything.
    expect(shown.units).toBe(0);
    const user = JSON.parse((await adminCli(t)("users", "show", String(userId), "--json")).out);
    // The SDK retried the 502 twice, as it retries any 5xx: three calls, each refunded whole.
    expect(user.lastCalls.map((c: { status: string; units: number }) => [c.status, c.units])).toEqual([["refunded", 0], ["refunded", 0], ["refunded", 0]]);
    expect(user.lastCalls[0].requestId).toBe(requestId);
    await expectLedgerConsistent();
  });

  it("refuses a model the tool does not list with 400, naming the models it serves, before any hold or upstream call", async () => {
    const { userId, secret } = await funded("5");
    const before = received.length;
    const error = await client(secret)
      .chat.completions.create({ model: "gpt-unknown", messages: MESSAGES })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({
      code: "unknown_model",
      message: 'this tool does not serve the model "gpt-unknown": it serves tg-large, tg-mini, tg-embed',
    });
    expect(received.length).toBe(before);
    expect(await balanceOf(userId)).toBe(parseMoney("5"));
    const [held] = await t.database.db.select().from(usageRecords).where(eq(usageRecords.userId, userId));
    expect(held).toBeUndefined();
  });

  it("refuses a stream that is not a JSON boolean with 400, before any hold or upstream call", async () => {
    const { userId, secret } = await funded("5");
    const before = received.length;
    for (const stream of ["true", 1, "false"]) {
      const body = JSON.stringify({ model: "tg-large", messages: MESSAGES, stream });
      const res = await fetch(`${gateway}/v1/tools/llm/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" }, body });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: { code: "bad_request", message: "stream must be true or false (a JSON boolean, not a string or number)" } });
    }
    expect(received.length).toBe(before);
    expect(await balanceOf(userId)).toBe(parseMoney("5"));
    const [held] = await t.database.db.select().from(usageRecords).where(eq(usageRecords.userId, userId));
    expect(held).toBeUndefined();
  });

  it("holds the prompt's bytes at the input price plus max_tokens at the output price", async () => {
    // A key with ¥0.0001 left of its spend limit: the refusal states the hold the call needed.
    const { secret } = await funded("5", { spendLimit: "0.0001" });
    const body = JSON.stringify({ model: "tg-large", messages: MESSAGES, max_tokens: 300 });
    const res = await fetch(`${gateway}/v1/tools/llm/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" }, body });
    expect(res.status).toBe(402);
    const hold = BigInt(Buffer.byteLength(body)) * 2n + 300n * 8n;
    expect(await res.json()).toEqual({ error: { code: "spend_limit_reached", message: spendLimitHoldMessage(`¥${formatMoney(hold)}`, "¥0.0001") } });
  });

  it("refuses with 402 before the upstream a call whose hold the balance does not cover, and serves it with a smaller max_tokens", async () => {
    // The default cap (4,096 output tokens at ¥8.00/1M: ¥0.032768) is more than ¥0.02; 600 tokens fit.
    const { userId, secret } = await funded("0.02");
    const before = received.length;
    const error = await client(secret)
      .chat.completions.create({ model: "tg-large", messages: MESSAGES, stream: true })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(402);
    expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ code: "insufficient_balance" });
    // The hold: the prompt's bytes at the input price and 4,096 tokens at the output price, about ¥0.033.
    expect((error as InstanceType<typeof OpenAI.APIError>).message).toMatch(
      /this call needs ¥0\.03\d+ held, more than the balance has: top up to continue, or ask for fewer tokens \(max_tokens or max_completion_tokens\)/,
    );
    expect(received.length).toBe(before);
    expect(await balanceOf(userId)).toBe(parseMoney("0.02"));

    const stream = await client(secret).chat.completions.create({ model: "tg-large", messages: MESSAGES, stream: true, max_completion_tokens: 600 });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe("Hello there");
    expect(received.at(-1)!.body).toMatchObject({ max_completion_tokens: 600 });
  });

  it("never takes a balance below zero when 100 streamed calls race for a balance that holds 20, and the ledger verifies", async () => {
    const params = { model: "tg-large", messages: MESSAGES, stream: true as const, max_tokens: 600 };
    const hold = BigInt(Buffer.byteLength(JSON.stringify(params))) * 2n + 600n * 8n;
    const { userId, secret } = await funded(formatMoney(hold * 20n));
    const caller = client(secret);
    const outcomes = await Promise.all(
      Array.from({ length: 100 }, async () => {
        try {
          let text = "";
          for await (const chunk of await caller.chat.completions.create(params)) text += chunk.choices[0]?.delta.content ?? "";
          return text;
        } catch (error) {
          return (error as InstanceType<typeof OpenAI.APIError>).status;
        }
      }),
    );
    const served = outcomes.filter((outcome) => outcome === "Hello there").length;
    expect(served + outcomes.filter((outcome) => outcome === 402).length).toBe(100);
    // Holds are given back as calls end, so at least the 20 the balance held are served, each charged exactly.
    expect(served).toBeGreaterThanOrEqual(20);
    const charged = await t.database.db.select().from(usageRecords).where(eq(usageRecords.userId, userId));
    expect(charged.filter((row) => row.status === "succeeded").map((row) => row.amount)).toEqual(Array(served).fill(LARGE_COST));
    expect(await balanceOf(userId)).toBe(hold * 20n - LARGE_COST * BigInt(served));
    const negative = await t.database.db.select().from(ledgerEntries).where(and(eq(ledgerEntries.userId, userId), lt(ledgerEntries.balanceAfter, 0n)));
    expect(negative).toEqual([]);
    await expectLedgerConsistent();
  });
});

/** What the tokenizer library itself counts for MESSAGES as a gpt-4o chat (its own chat format), and for the answer's text. */
const COUNTED_INPUT = gpt4oTokens(MESSAGES);
const COUNTED_OUTPUT = gpt4oTokens("Hello there");
const COUNTED_COST = BigInt(COUNTED_INPUT) * 2n + BigInt(COUNTED_OUTPUT) * 8n;

describe("an upstream that reports no usage", () => {
  it("is charged for a streamed call the tokens Tollgate counts with the model's tokenizer, and the row says they were counted", async () => {
    const { userId, secret } = await funded("5");
    const { data: stream, response } = await client(secret, "no-usage").chat.completions.create({ model: "tg-large", messages: MESSAGES, stream: true }).withResponse();
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe("Hello there");
    expect(received.at(-1)!.body).toMatchObject({ stream_options: { include_usage: true } });
    const { usage, llm } = await chargeOf(response.headers.get("x-request-id")!);
    expect(usage).toMatchObject({ status: "succeeded", amount: COUNTED_COST });
    expect(llm).toMatchObject({ inputTokens: COUNTED_INPUT, cachedInputTokens: 0, outputTokens: COUNTED_OUTPUT, origin: "counted" });
    expect(await balanceOf(userId)).toBe(parseMoney("5") - COUNTED_COST);
    expect(t.logs()).toContain("the upstream reported no usage: Tollgate counted the tokens");
  });

  it("counts a long streamed answer whole, its events parsed down to their text as they pile up", async () => {
    const { secret } = await funded("5");
    const messages = [{ role: "user" as const, content: LONG_PROMPT }];
    const { data: stream, response } = await client(secret, "no-usage").chat.completions.create({ model: "tg-large", messages, stream: true }).withResponse();
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe(`Hello there${" toll".repeat(LONG_DELTAS)}`);
    const { llm } = await chargeOf(response.headers.get("x-request-id")!);
    expect(llm).toMatchObject({ inputTokens: gpt4oTokens(messages), outputTokens: gpt4oTokens(text), origin: "counted" });
  });

  it("is charged for a whole answer the tokens Tollgate counts", async () => {
    const { secret } = await funded("5");
    const { data, response } = await client(secret, "no-usage").chat.completions.create({ model: "tg-large", messages: MESSAGES }).withResponse();
    expect(data.usage).toBeUndefined();
    expect(response.headers.get("x-tollgate-cost")).toBe(formatMoney(COUNTED_COST));
    expect((await chargeOf(response.headers.get("x-request-id")!)).llm).toMatchObject({ inputTokens: COUNTED_INPUT, outputTokens: COUNTED_OUTPUT, origin: "counted" });
  });

  it("charges a stream cut before its usage the prompt and the output that reached the caller, counted", async () => {
    const { userId, secret } = await funded("5");
    const { data: stream, response } = await client(secret, "cut").chat.completions.create({ model: "tg-large", messages: MESSAGES, stream: true }).withResponse();
    let text = "";
    const broken = await (async () => {
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? "";
        if (text === "Hello there") cutNow();
      }
    })().then(
      () => false,
      () => true,
    );
    expect(broken).toBe(true);
    expect(text).toBe("Hello there");
    const { usage, llm } = await chargeOf(response.headers.get("x-request-id")!);
    expect(usage).toMatchObject({ status: "succeeded", amount: COUNTED_COST });
    expect(llm).toMatchObject({ inputTokens: COUNTED_INPUT, outputTokens: COUNTED_OUTPUT, origin: "counted" });
    expect(await balanceOf(userId)).toBe(parseMoney("5") - COUNTED_COST);
    await expectLedgerConsistent();
  });
});

describe("the other OpenAI routes", () => {
  it("charges a Responses API call, streamed and not, the usage of its final response", async () => {
    const { userId, secret } = await funded("5");
    const whole = await client(secret).responses.create({ model: "tg-large", input: PROMPT }).withResponse();
    expect(whole.data.output_text).toBe("Hello there");
    expect((await chargeOf(whole.response.headers.get("x-request-id")!)).llm).toMatchObject({ inputTokens: 1234, cachedInputTokens: 1000, outputTokens: 567, ...LARGE_AMOUNTS });

    const { data: stream, response } = await client(secret).responses.create({ model: "tg-large", input: PROMPT, stream: true, max_output_tokens: 100 }).withResponse();
    const types: string[] = [];
    for await (const streamed of stream) types.push(streamed.type);
    expect(types).toEqual(["response.created", "response.output_text.delta", "response.output_text.delta", "response.completed"]);
    // 100 output tokens at ¥8.00/1M.
    const { usage, llm } = await chargeOf(response.headers.get("x-request-id")!);
    expect(llm).toMatchObject({ outputTokens: 100, outputAmount: 800n, origin: "reported" });
    expect(usage.amount).toBe(468n + 2000n + 800n);
    expect(await balanceOf(userId)).toBe(parseMoney("5") - LARGE_COST - usage.amount);
  });

  it("charges embeddings their input tokens, the SDK decoding its default base64 as it would from the upstream", async () => {
    const { secret } = await funded("5");
    const { data, response } = await client(secret).embeddings.create({ model: "tg-embed", input: "toll gates" }).withResponse();
    expect(data.data[0]!.embedding).toEqual([0.25, -0.5, 1]);
    // 8 tokens at ¥0.50/1M: 4 micro-units.
    expect(response.headers.get("x-tollgate-cost")).toBe(formatMoney(4n));
    expect((await chargeOf(response.headers.get("x-request-id")!)).llm).toMatchObject({ model: "tg-embed", inputTokens: 8, outputTokens: 0, inputAmount: 4n, outputAmount: 0n });
  });

  it("lists the tool's models from the catalog, free and without calling the upstream", async () => {
    const { userId, headers, secret } = await funded("5");
    const before = received.length;
    const models = [];
    for await (const model of client(secret).models.list()) models.push(model.id);
    expect(models).toEqual(["tg-large", "tg-mini", "tg-embed"]);
    expect(await client(secret).models.retrieve("tg-mini")).toMatchObject({ id: "tg-mini", object: "model", owned_by: "llm" });
    expect(received.length).toBe(before);
    expect(await balanceOf(userId)).toBe(parseMoney("5"));
    expect(await t.database.db.select().from(usageRecords).where(eq(usageRecords.userId, userId))).toEqual([]);
    await t.app.callLog.drain();
    const logged = await t.app.inject({ url: "/api/v1/console/calls", headers });
    expect(logged.json().items.map((row: { outcome: string; amount: string; notChargedReason: string }) => [row.outcome, row.amount, row.notChargedReason])).toEqual([
      ["served", "0.00", "not charged: answered by the gateway, without calling the tool"],
      ["served", "0.00", "not charged: answered by the gateway, without calling the tool"],
    ]);
  });

  it("refuses other paths with 404 before any hold", async () => {
    const { userId, secret } = await funded("5");
    const res = await fetch(`${gateway}/v1/tools/llm/audio/translations`, { method: "POST", headers: { authorization: `Bearer ${secret}` }, body: JSON.stringify({ model: "tg-large", input: "hi" }) });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: {
        code: "unknown_path",
        message: "this tool serves POST /chat/completions, POST /responses, POST /embeddings and GET /models (and /audio/speech), not POST /audio/translations",
      },
    });
    expect(await balanceOf(userId)).toBe(parseMoney("5"));
  });
});

describe("a path the operator prices per call", () => {
  it("is passed on and charged its price", async () => {
    const { userId, secret } = await funded("5");
    const { data, response } = await client(secret).audio.speech.create({ model: "tg-large", voice: "alloy", input: "hi" }).withResponse();
    expect(Buffer.from(await data.arrayBuffer()).toString()).toBe("ID3 fake mp3");
    expect(received.at(-1)).toMatchObject({ url: "/v1/audio/speech", body: { model: "tg-large", input: "hi" } });
    const { usage, llm } = await chargeOf(response.headers.get("x-request-id")!);
    expect(usage).toMatchObject({ status: "succeeded", amount: parseMoney("0.01") });
    expect(llm).toBeNull();
    expect(await balanceOf(userId)).toBe(parseMoney("4.99"));
  });
});

describe("what the user sees of an LLM call", () => {
  it("the public catalog lists an LLM tool's models with their prices per 1M tokens, and nothing of its upstream", async () => {
    const res = await t.app.inject({ url: "/api/v1/tools" });
    const llm = res.json().tools.find((tool: { id: string }) => tool.id === "llm");
    expect(llm).toMatchObject({
      price: "0",
      unit: null,
      models: [
        { id: "tg-large", input: "2.00", cachedInput: "2.00", output: "8.00" },
        { id: "tg-mini", input: "0.15", cachedInput: "0.075", output: "0.60" },
        { id: "tg-embed", input: "0.50", cachedInput: "0.50", output: "0.00" },
      ],
    });
    expect(res.body).not.toContain(upstreamBase);
  });

  it("billing details and their CSV show the model, tokens in and out with the amount of each, and who counted them", async () => {
    const { headers, secret } = await funded("5");
    const reported = await client(secret).chat.completions.create({ model: "tg-large", messages: MESSAGES }).withResponse();
    const counted = await client(secret, "no-usage").chat.completions.create({ model: "tg-large", messages: MESSAGES }).withResponse();
    const page = await t.app.inject({ url: "/api/v1/console/billing", headers });
    expect(page.json().items).toMatchObject([
      {
        requestId: counted.response.headers.get("x-request-id"),
        amount: formatMoney(COUNTED_COST),
        llm: { model: "tg-large", inputTokens: COUNTED_INPUT, cachedInputTokens: 0, outputTokens: COUNTED_OUTPUT, origin: "counted" },
      },
      {
        requestId: reported.response.headers.get("x-request-id"),
        amount: "0.007004",
        // Input is what all 1,234 input tokens cost (¥0.000468 uncached + ¥0.002 cached): input and output add up to the amount.
        llm: { model: "tg-large", inputTokens: 1234, cachedInputTokens: 1000, outputTokens: 567, inputAmount: "0.002468", cachedInputAmount: "0.002", outputAmount: "0.004536", origin: "reported" },
      },
    ]);
    const csv = (await t.app.inject({ url: "/api/v1/console/billing.csv", headers })).body.trim().split("\r\n");
    expect(csv[0]).toContain(",model,input_tokens,cached_input_tokens,output_tokens,input_amount,cached_input_amount,output_amount,tokens_origin,paid_by,free_units,package_units,grant_units,balance_units");
    expect(csv[2]).toMatch(/,llm,llm,1801,0\.007004,[0-9a-f-]{36},tg-large,1234,1000,567,0\.002468,0\.002,0\.004536,reported,balance,0,0,0,1801,$/);
    expect(csv[1]).toMatch(new RegExp(`,no-usage,llm,${COUNTED_INPUT + COUNTED_OUTPUT},${formatMoney(COUNTED_COST).replace(".", "\\.")},[0-9a-f-]{36},tg-large,${COUNTED_INPUT},0,${COUNTED_OUTPUT},`));
    expect(csv[1]).toMatch(new RegExp(`,counted,balance,0,0,0,${COUNTED_INPUT + COUNTED_OUTPUT},$`));
    // The call log counts the same units as billing details: tokens, not the micro-units the call was priced in.
    await t.app.callLog.drain();
    const logged = await t.app.inject({ url: `/api/v1/console/calls/${reported.response.headers.get("x-request-id")}`, headers });
    expect(logged.json()).toMatchObject({ units: 1801, amount: "0.007004" });
  });
});
