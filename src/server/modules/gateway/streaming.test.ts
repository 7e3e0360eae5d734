import { execFile } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import { once } from "node:events";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import zlib from "node:zlib";
import { eq, sql } from "drizzle-orm";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatMoney } from "#shared/money";
import { apiKeys, usageRecords, users } from "../../db/schema/index";
import type { Db } from "../../db/client";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { createUserWithSession } from "../../testing/users";
import { verifyLedger } from "../ledger/verify";
import { MAX_INFLATED_FOR_UNITS } from "./handlers/http-upstream";
import { chargeBatch, completeBatch } from "../ledger/charges";
import { refundAbandonedCalls } from "../ledger/refunds";
import { UNPAID_UPSTREAM_CALLS_PER_USER_AND_PROCESS } from "./seen-balances";

/**
 * HTTP tools that stream, called through a listening gateway by real clients (node:http, the
 * official openai SDK), against local fake upstreams speaking HTTP/1.1, chunked bodies,
 * trailers and server-sent events.
 */
let t: TestApp;
let gateway: string;
let upstream: http.Server;
/** Headers each upstream request arrived with, by the x-request-id the gateway gave it. */
const seen = new Map<string, http.IncomingHttpHeaders>();
/** Upstream answers the test releases by hand: a drip waits for the caller to have its first chunk. */
const gates = new Map<string, { opened: Promise<void>; open(): void }>();
function gate(name: string): Promise<void> {
  let entry = gates.get(name);
  if (!entry) {
    let release = () => undefined as void;
    const opened = new Promise<void>((resolve) => (release = resolve));
    entry = { opened, open: release };
    gates.set(name, entry);
  }
  return entry.opened;
}
function open(name: string) {
  gates.get(name)?.open();
  gates.delete(name);
}

const METRICS_TOKEN = "streaming-metrics-token";
const BIG_BYTES = 100 * 1024 * 1024;
const BIG_CHUNK = Buffer.alloc(64 * 1024, "tollgate-stream-");
const TOKENS = { prompt_tokens: 12, completion_tokens: 30, total_tokens: 42 };

const sse = (res: http.ServerResponse, extra: http.OutgoingHttpHeaders = {}) =>
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", ...extra });
const event = (value: unknown) => `data: ${typeof value === "string" ? value : JSON.stringify(value)}\n\n`;

/**
 * An event stream of 16 MiB in about 16 KB of gzip: units 2 at the start, 16 MiB of blank lines,
 * units 3 at the end. Made once, on first use.
 */
let bomb: Buffer | undefined;
function gzipBomb(): Buffer {
  bomb ??= zlib.gzipSync(Buffer.concat([Buffer.from(event({ usage: { units: 2 } })), Buffer.alloc(16 * 1024 * 1024, "\n"), Buffer.from(event({ usage: { units: 3 } }))]), {
    level: 9,
  });
  return bomb;
}

async function writeBig(res: http.ServerResponse) {
  res.writeHead(200, { "content-type": "application/octet-stream" });
  for (let sent = 0; sent < BIG_BYTES; sent += BIG_CHUNK.length) {
    if (!res.write(BIG_CHUNK)) await once(res, "drain");
  }
  res.end();
}

function chatCompletion(body: { stream?: boolean; model: string }, res: http.ServerResponse) {
  const base = { id: "chatcmpl-1", created: 1_700_000_000, model: body.model };
  // OpenAI-compatible upstreams send their own request id; the caller must still see Tollgate's.
  const own = { "x-request-id": "upstream-own-id", "set-cookie": "upstream=1" };
  if (!body.stream) {
    res.writeHead(200, { "content-type": "application/json", ...own });
    return res.end(
      JSON.stringify({
        ...base,
        object: "chat.completion",
        choices: [{ index: 0, message: { role: "assistant", content: "Hello there" }, finish_reason: "stop", logprobs: null }],
        usage: TOKENS,
      }),
    );
  }
  sse(res, own);
  const chunk = (delta: object, finish: string | null = null) => ({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] });
  res.write(event(chunk({ role: "assistant", content: "" })));
  res.write(event(chunk({ content: "Hello" })));
  res.write(": a comment line\n\n");
  res.write(event(chunk({ content: " there" })));
  res.write(event(chunk({}, "stop")));
  res.write(event({ ...base, object: "chat.completion.chunk", choices: [], usage: TOKENS }));
  res.end(event("[DONE]"));
}

function handle(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) {
  const url = req.url ?? "";
  if (url.startsWith("/v1/chat/completions")) return chatCompletion(JSON.parse(body.toString("utf8")), res);
  if (url.startsWith("/headers")) {
    res.writeHead(200, {
      "content-type": "text/plain",
      "x-request-id": "upstream-own-id",
      "set-cookie": "session=upstream",
      "x-upstream-note": "kept",
      connection: "keep-alive, x-hop",
      "x-hop": "dropped",
      // The answer is served from the site's origin: the site's security headers stay its own, the CSP a sandbox.
      "content-security-policy": "default-src *",
      "x-frame-options": "ALLOWALL",
      "x-content-type-options": "sniff",
      "access-control-allow-origin": "*",
      "idempotent-replayed": "true",
    });
    return res.end("ok");
  }
  if (url.startsWith("/trailer")) {
    res.writeHead(200, { "content-type": "text/plain", trailer: "x-tool-units" });
    res.write("counting ");
    res.write("the units");
    res.addTrailers({ "x-tool-units": "7" });
    return res.end();
  }
  if (url.startsWith("/no-units")) {
    sse(res);
    return res.end(event({ text: "no usage here" }) + event("[DONE]"));
  }
  if (url.startsWith("/big")) return void writeBig(res);
  if (url.startsWith("/drip")) {
    sse(res);
    res.write(event({ n: 1 }));
    return void gate("drip").then(() => res.end(event({ n: 2, usage: { units: 3 } })));
  }
  if (url.startsWith("/reset-after-units")) {
    sse(res, { "x-tool-units": "6" });
    res.write(event({ n: 1 }));
    return void gate("reset-after-units").then(() => res.socket?.destroy());
  }
  if (url.startsWith("/broken-at-once")) {
    sse(res);
    res.write(event({ n: 1 }));
    return void setTimeout(() => res.socket?.destroy(), 10);
  }
  if (url.startsWith("/reset")) {
    sse(res);
    res.write(event({ n: 1 }));
    return void gate("reset").then(() => res.socket?.destroy());
  }
  if (url.startsWith("/stall")) {
    sse(res);
    return void res.write(event({ n: 1 }));
  }
  if (url.startsWith("/long")) {
    // An answer longer than the tool's total timeout, read as fast as it comes; the usage would come at its end.
    sse(res);
    const tick = setInterval(() => res.write(event({ text: "more" })), 50);
    res.once("close", () => clearInterval(tick));
    return;
  }
  if (url.startsWith("/flood")) {
    // More than any socket buffers hold, with the units only at the end: a caller who stops reading holds it back.
    sse(res);
    return void (async () => {
      const filler = event({ text: "x".repeat(8000) });
      const drainedOrClosed = () =>
        new Promise<void>((resolve) => {
          const done = () => {
            res.off("drain", done).off("close", done);
            resolve();
          };
          res.once("drain", done).once("close", done);
        });
      for (let i = 0; i < 2000 && !res.destroyed; i++) if (!res.write(filler)) await drainedOrClosed();
      if (!res.destroyed) res.end(event({ usage: { units: 2 } }));
    })();
  }
  if (url.startsWith("/left-behind")) {
    // Goes on long after the caller left: megabytes the gateway must read to reach the usage event.
    sse(res);
    res.write(event({ n: 1 }));
    return void gate("left-behind").then(async () => {
      const filler = event({ text: "x".repeat(8000) });
      for (let i = 0; i < 600; i++) if (!res.write(filler)) await once(res, "drain");
      res.end(event({ usage: { units: 5 } }) + event("[DONE]"));
    });
  }
  if (url.startsWith("/held")) {
    sse(res);
    res.write(event({ started: true }));
    return void gate("held").then(() => res.end(event({ usage: { units: 4 } })));
  }
  if (url.startsWith("/gzip-json")) {
    res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
    return res.end(zlib.gzipSync(JSON.stringify({ answer: "squeezed", usage: { units: 6 } })));
  }
  if (url.startsWith("/gzip-sse")) {
    sse(res, { "content-encoding": "gzip" });
    return res.end(zlib.gzipSync(event({ text: "squeezed" }) + event({ usage: { units: 8 } }) + event("[DONE]")));
  }
  if (url.startsWith("/gzip-bomb")) {
    sse(res, { "content-encoding": "gzip" });
    return res.end(gzipBomb());
  }
  if (url.startsWith("/count")) {
    res.writeHead(200, { "content-type": "text/plain" });
    return res.end(`received ${body.length} bytes`);
  }
  res.writeHead(404).end();
}

/**
 * Answers as soon as the request starts, without waiting for its body: 19 events at once, and the
 * 20th with the units only when the test opens the gate named by the path.
 */
function answerBeforeTheBody(req: http.IncomingMessage, res: http.ServerResponse) {
  req.on("error", () => undefined).resume();
  sse(res);
  for (let n = 1; n < 20; n++) res.write(event({ n }));
  void gate(req.url ?? "").then(() => res.end(event({ n: 20, usage: { units: 3 } })));
}

function writeCatalog(base: string): string {
  const tool = (id: string, url: string, extra: object = {}, handler: object = {}) => ({
    id,
    name: id,
    description: `${id} tool`,
    category: "test",
    price: "0.01",
    rateLimitPerMinute: 100_000,
    handler: { type: "http", url: `${base}${url}`, ...handler },
    ...extra,
  });
  const perUnit = { price: "0.001", unit: "token", maxUnitsPerCall: 1000 };
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "streaming-")), "tools.json");
  fs.writeFileSync(
    file,
    JSON.stringify({
      tools: [
        tool("llm", "/", perUnit, { unitsPath: "usage.total_tokens" }),
        tool("headers", "/headers"),
        tool("trailer", "/trailer", perUnit),
        tool("no-units", "/no-units", perUnit, { unitsPath: "usage.units" }),
        tool("big", "/big"),
        tool("drip", "/drip", perUnit, { unitsPath: "usage.units" }),
        tool("drip-per-call", "/drip"),
        tool("reset", "/reset", perUnit, { unitsPath: "usage.units" }),
        tool("left-behind", "/left-behind", perUnit, { unitsPath: "usage.units" }),
        tool("reset-after-units", "/reset-after-units", perUnit, { unitsPath: "usage.units" }),
        tool("stall", "/stall", perUnit, { unitsPath: "usage.units", idleTimeoutMs: 300 }),
        tool("flood", "/flood", perUnit, { unitsPath: "usage.units", totalTimeoutMs: 1500 }),
        tool("long", "/long", perUnit, { unitsPath: "usage.units", totalTimeoutMs: 1000 }),
        tool("held", "/held", { price: "0.001", unit: "token", maxUnitsPerCall: 10 }, { unitsPath: "usage.units" }),
        tool("gzip-json", "/gzip-json", perUnit, { unitsPath: "usage.units" }),
        tool("gzip-sse", "/gzip-sse", perUnit, { unitsPath: "usage.units" }),
        tool("gzip-bomb", "/gzip-bomb", perUnit, { unitsPath: "usage.units" }),
        tool("small-body", "/count", {}, { maxRequestBytes: 1024 }),
        tool("broken-at-once", "/broken-at-once"),
        tool("waits-for-hold", "/headers", {}, { startEarly: false }),
        tool("early-per-call", "/early-per-call"),
        tool("early-per-unit", "/early-per-unit", perUnit, { unitsPath: "usage.units" }),
        tool("early-small-body", "/early-small-body", {}, { maxRequestBytes: 1024 }),
      ],
    }),
  );
  return file;
}

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    seen.set(String(req.headers["x-request-id"]), req.headers);
    if (req.url?.startsWith("/early")) return answerBeforeTheBody(req, res);
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => handle(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  t = await createTestApp({ TOOLS_CATALOG: writeCatalog(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`), METRICS_TOKEN });
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  gateway = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const name of [...gates.keys()]) open(name);
  await t.close();
  upstream.closeAllConnections();
  upstream.close();
});

async function funded(balance: string, key: { spendLimit?: string } = {}) {
  const user = await createUserWithSession(t, { balance });
  const res = await t.app.inject({ method: "POST", url: "/api/v1/console/keys", headers: user.headers, payload: { name: "stream", ...key } });
  expect(res.statusCode).toBe(201);
  return { userId: user.userId, secret: res.json().secret as string };
}

const upstreamCallCount = () => seen.size;

async function balanceOf(userId: number): Promise<string> {
  const [row] = await t.database.db.select({ balance: users.balance }).from(users).where(eq(users.id, userId));
  return formatMoney(row!.balance);
}

async function usageOf(requestId: string) {
  const [row] = await t.database.db.select().from(usageRecords).where(eq(usageRecords.requestId, requestId));
  return row;
}

/** The call's usage row once it is no longer pending: a stream is settled after the caller's copy ends or breaks. */
async function settledUsage(requestId: string) {
  let usage = await usageOf(requestId);
  for (let tries = 0; usage?.status === "pending" && tries < 600; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    usage = await usageOf(requestId);
  }
  return usage;
}

async function expectLedgerConsistent() {
  expect((await verifyLedger(t.database.db)).problems).toEqual([]);
}

/** A call through the gateway with node:http; the body is read as it arrives. */
function request(secret: string | null, toolId: string, options: { method?: string; headers?: http.OutgoingHttpHeaders; body?: string | Buffer; base?: string } = {}) {
  const req = http.request(`${options.base ?? gateway}/v1/tools/${toolId}`, {
    method: options.method ?? "POST",
    headers: { ...(secret ? { authorization: `Bearer ${secret}` } : {}), ...options.headers },
  });
  const response = once(req, "response").then(([res]) => res as http.IncomingMessage);
  if (options.body !== undefined) req.end(options.body);
  return { req, response };
}

/** Reads a whole answer; `broken` when the connection closed before its end. */
async function readAll(res: http.IncomingMessage): Promise<{ body: Buffer; broken: boolean }> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of res) chunks.push(chunk as Buffer);
  } catch {
    return { body: Buffer.concat(chunks), broken: true };
  }
  return { body: Buffer.concat(chunks), broken: !res.complete };
}

describe("the official openai SDK through the gateway", () => {
  const client = (secret: string) => new OpenAI({ apiKey: secret, baseURL: `${gateway}/v1/tools/llm/v1`, maxRetries: 0 });

  it("reads a chat completion unchanged, with Tollgate's request id, charged exactly its usage", async () => {
    const { userId, secret } = await funded("5");
    const { data, response, request_id } = await client(secret)
      .chat.completions.create({ model: "fake-model", messages: [{ role: "user", content: "hi" }] })
      .withResponse();
    expect(data.choices[0]!.message.content).toBe("Hello there");
    expect(data.usage).toEqual(TOKENS);
    const requestId = response.headers.get("x-request-id")!;
    expect(requestId).not.toBe("upstream-own-id");
    // The SDK reads the id into every answer and error.
    expect(request_id).toBe(requestId);
    expect(response.headers.get("x-tollgate-cost")).toBe("0.042");
    expect(response.headers.get("set-cookie")).toBeNull();
    // The upstream got the call's id and never the caller's key.
    expect(seen.get(requestId)).toMatchObject({ "x-request-id": requestId });
    expect(seen.get(requestId)!.authorization).toBeUndefined();
    expect(await usageOf(requestId)).toMatchObject({ status: "succeeded", units: 42, amount: 42_000n, httpStatus: 200 });
    expect(await balanceOf(userId)).toBe("4.958");
    await expectLedgerConsistent();
  });

  it("reads a streamed chat completion chunk by chunk, and the call is charged the usage of its last event", async () => {
    const { userId, secret } = await funded("5");
    const { data: stream, response } = await client(secret)
      .chat.completions.create({ model: "fake-model", messages: [{ role: "user", content: "hi" }], stream: true, stream_options: { include_usage: true } })
      .withResponse();
    let text = "";
    let usage: unknown = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe("Hello there");
    expect(usage).toEqual(TOKENS);
    const requestId = response.headers.get("x-request-id")!;
    expect(requestId).not.toBe("upstream-own-id");
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(await usageOf(requestId)).toMatchObject({ status: "succeeded", units: 42, amount: 42_000n, httpStatus: 200 });
    expect(await balanceOf(userId)).toBe("4.958");
    await expectLedgerConsistent();
  });
});

describe("streamed answers", () => {
  it("pass the upstream's headers except hop-by-hop ones, set-cookie and its request id; the upstream gets the caller's other headers", async () => {
    const { secret } = await funded("1");
    const overrides = {
      "x-original-url": "/admin",
      "x-rewrite-url": "/admin",
      "x-http-method-override": "DELETE",
      "x-forwarded-for": "1.2.3.4",
      "x-real-ip": "9.9.9.9",
      forwarded: "for=1.1.1.1",
      "x-forwarded-host": "evil.example",
    };
    const { response } = request(secret, "headers", { method: "GET", headers: { "x-client-note": "hello", cookie: "mine=1", ...overrides }, body: "" });
    const res = await response;
    const { body } = await readAll(res);
    expect(body.toString()).toBe("ok");
    expect(res.headers["x-upstream-note"]).toBe("kept");
    expect(res.headers["set-cookie"]).toBeUndefined();
    expect(res.headers["x-hop"]).toBeUndefined();
    expect(res.headers["content-security-policy"]).toBe("sandbox; default-src 'none'; frame-ancestors 'none'");
    expect(res.headers["x-frame-options"]).toBe("SAMEORIGIN");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
    expect(res.headers["idempotent-replayed"]).toBeUndefined();
    const requestId = res.headers["x-request-id"] as string;
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen.get(requestId)).toMatchObject({ "x-client-note": "hello" });
    expect(seen.get(requestId)!.cookie).toBeUndefined();
    expect(seen.get(requestId)!.authorization).toBeUndefined();
    // Headers some frameworks read as another path, method or client are not the caller's to set.
    for (const name of Object.keys(overrides)) expect(seen.get(requestId)![name]).toBeUndefined();
  });

  it("refuse TRACE before anything is charged or sent: it would echo the operator's headers back", async () => {
    const { userId, secret } = await funded("1");
    const before = upstreamCallCount();
    const res = await request(secret, "headers", { method: "TRACE", body: "" }).response;
    expect(res.statusCode).toBe(400);
    expect(JSON.parse((await readAll(res)).body.toString()).error).toMatchObject({ code: "bad_request", message: "TRACE is not passed to tools" });
    expect(upstreamCallCount()).toBe(before);
    expect(await balanceOf(userId)).toBe("1.00");
  });

  it("charge the units of an x-tool-units trailer, and end with the call's cost as a trailer", async () => {
    const { userId, secret } = await funded("2");
    const res = await request(secret, "trailer", { body: "" }).response;
    const { body, broken } = await readAll(res);
    expect(broken).toBe(false);
    expect(body.toString()).toBe("counting the units");
    expect(res.trailers["x-tollgate-cost"]).toBe("0.007");
    expect(res.trailers["x-tool-units"]).toBeUndefined();
    expect(await usageOf(res.headers["x-request-id"] as string)).toMatchObject({ status: "succeeded", units: 7, amount: 7_000n });
    const metrics = await t.app.inject({ method: "GET", url: "/metrics", headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(metrics.body).toMatch(/^tollgate_gateway_calls_total\{tool="trailer",outcome="served",status_class="2xx",charged="true"\} 1$/m);
    expect(metrics.body).toMatch(/^tollgate_gateway_charged_micros_total\{tool="trailer"\} 7000$/m);
    expect(metrics.body).toMatch(/^tollgate_gateway_call_duration_seconds_count\{tool="trailer",phase="upstream"\} 1$/m);
    expect(await balanceOf(userId)).toBe("1.993");
    await expectLedgerConsistent();
  });

  it("show the cost trailer to curl run with the option the billing docs name, in each language", async () => {
    const { secret } = await funded("3");
    const run = promisify(execFile);
    for (const [page, said] of [
      ["docs/site/billing.md", /\(curl shows it with `([^`]+)`\)/],
      ["docs/site/zh-CN/billing.md", /（curl 加 `([^`]+)` 可以看到）/],
    ] as const) {
      const option = said.exec(fs.readFileSync(path.resolve(page), "utf8"))?.[1];
      expect(option, page).toBeDefined();
      const { stdout, stderr } = await run("curl", ["-sS", option!, "-X", "POST", "-H", `Authorization: Bearer ${secret}`, `${gateway}/v1/tools/trailer`]);
      expect(`${stdout}${stderr}`, page).toMatch(/x-tollgate-cost: 0\.007/i);
    }
  });

  it("that report no units are charged their whole hold (maxUnitsPerCall), and the log says so", async () => {
    const { userId, secret } = await funded("2");
    const res = await request(secret, "no-units", { body: "" }).response;
    expect((await readAll(res)).broken).toBe(false);
    expect(res.trailers["x-tollgate-cost"]).toBe("1.00");
    const requestId = res.headers["x-request-id"] as string;
    expect(await usageOf(requestId)).toMatchObject({ status: "succeeded", units: 1000, amount: 1_000_000n });
    expect(await balanceOf(userId)).toBe("1.00");
    const warning = t
      .logs()
      .split("\n")
      .find((line) => line.includes(requestId) && line.includes("a per-unit tool reported no units"));
    expect(warning).toContain('"tool":"no-units"');
  });

  it("relay a 100 MB chunked binary body intact", async () => {
    const { userId, secret } = await funded("1");
    const res = await request(secret, "big", { method: "GET", body: "" }).response;
    expect(res.statusCode).toBe(200);
    const hash = createHash("sha256");
    let size = 0;
    for await (const chunk of res) {
      hash.update(chunk as Buffer);
      size += (chunk as Buffer).length;
    }
    expect(res.complete).toBe(true);
    const expected = createHash("sha256");
    for (let sent = 0; sent < BIG_BYTES; sent += BIG_CHUNK.length) expected.update(BIG_CHUNK);
    expect(size).toBe(BIG_BYTES);
    expect(hash.digest("hex")).toBe(expected.digest("hex"));
    expect(await balanceOf(userId)).toBe("0.99");
  }, 120_000);

  it("reach the caller chunk by chunk: the first event arrives while the upstream is still sending", async () => {
    const { userId, secret } = await funded("2");
    const res = await request(secret, "drip", { body: "" }).response;
    const [first] = (await once(res, "data")) as [Buffer];
    expect(first.toString()).toBe('data: {"n":1}\n\n');
    expect(gates.has("drip")).toBe(true);
    open("drip");
    const { body, broken } = await readAll(res);
    expect(broken).toBe(false);
    expect(body.toString()).toBe('data: {"n":2,"usage":{"units":3}}\n\n');
    expect(await balanceOf(userId)).toBe("1.997");
  });

  it("break the caller's connection when the upstream breaks mid-stream, and the call is refunded", async () => {
    const { userId, secret } = await funded("2");
    const res = await request(secret, "reset", { body: "" }).response;
    await once(res, "data");
    open("reset");
    const { broken } = await readAll(res);
    expect(broken).toBe(true);
    expect(await usageOf(res.headers["x-request-id"] as string)).toMatchObject({ status: "refunded", amount: 0n });
    expect(await balanceOf(userId)).toBe("2.00");
    await expectLedgerConsistent();
  });

  it("that break after reporting their units are charged those units, and the caller's connection still breaks", async () => {
    const { userId, secret } = await funded("2");
    const res = await request(secret, "reset-after-units", { body: "" }).response;
    await once(res, "data");
    open("reset-after-units");
    expect((await readAll(res)).broken).toBe(true);
    expect(await settledUsage(res.headers["x-request-id"] as string)).toMatchObject({ status: "succeeded", units: 6, amount: 6_000n });
    expect(await balanceOf(userId)).toBe("1.994");
    await expectLedgerConsistent();
  });

  it("cut by the tool's idle timeout while the caller reads are the tool's failure: refunded", async () => {
    const { userId, secret } = await funded("2");
    const res = await request(secret, "stall", { body: "" }).response;
    const { body, broken } = await readAll(res);
    expect(body.toString()).toBe('data: {"n":1}\n\n');
    expect(broken).toBe(true);
    expect(await settledUsage(res.headers["x-request-id"] as string)).toMatchObject({ status: "refunded", amount: 0n });
    expect(await balanceOf(userId)).toBe("2.00");
  });

  it("cut by the tool's total timeout while the caller reads are charged the whole hold: an answer asked longer than a call may run is not free", async () => {
    const { userId, secret } = await funded("2");
    const res = await request(secret, "long", { body: "" }).response;
    const { body, broken } = await readAll(res);
    expect(body.toString()).toContain('data: {"text":"more"}');
    expect(broken).toBe(true);
    expect(await settledUsage(res.headers["x-request-id"] as string)).toMatchObject({ status: "succeeded", units: 1000, amount: 1_000_000n });
    expect(await balanceOf(userId)).toBe("1.00");
    await expectLedgerConsistent();
  });

  it("cut by the gateway's total timeout while the caller would not read are charged the whole hold: a slow reader gets no stream free", async () => {
    const { userId, secret } = await funded("2");
    const res = await request(secret, "flood", { body: "" }).response;
    await once(res, "data");
    res.pause();
    expect(await settledUsage(res.headers["x-request-id"] as string)).toMatchObject({ status: "succeeded", units: 1000, amount: 1_000_000n });
    // What the sockets still held arrives, then the break: the answer never looks complete.
    expect((await readAll(res)).broken).toBe(true);
    expect(await balanceOf(userId)).toBe("1.00");
    await expectLedgerConsistent();
  });

  it("go on being read after the caller hangs up, and the call is charged the units the upstream reports at its end", async () => {
    const { userId, secret } = await funded("2");
    const { req, response } = request(secret, "left-behind", { body: "" });
    const res = await response;
    await once(res, "data");
    const requestId = res.headers["x-request-id"] as string;
    const closed = new Promise((resolve) => res.once("close", resolve));
    res.on("error", () => undefined);
    req.destroy();
    await closed;
    open("left-behind");
    expect(await settledUsage(requestId)).toMatchObject({ status: "succeeded", units: 5, amount: 5_000n });
    expect(await balanceOf(userId)).toBe("1.995");
    await expectLedgerConsistent();
  });

  it("read units from a compressed answer, and the caller gets the compressed bytes it is told of", async () => {
    const { userId, secret } = await funded("2");
    for (const [toolId, units] of [
      ["gzip-json", 6],
      ["gzip-sse", 8],
    ] as const) {
      const res = await request(secret, toolId, { headers: { "accept-encoding": "gzip" }, body: "" }).response;
      expect(res.headers["content-encoding"]).toBe("gzip");
      const { body } = await readAll(res);
      expect(zlib.gunzipSync(body).toString()).toContain("squeezed");
      expect(await usageOf(res.headers["x-request-id"] as string)).toMatchObject({ status: "succeeded", units });
    }
    expect(await balanceOf(userId)).toBe("1.986");
  });
});

describe("a compressed event stream that inflates enormously", () => {
  it("is inflated only up to the limit read for units, relayed whole, and charged as an answer without units: all it held", async () => {
    const { userId, secret } = await funded("2");
    const res = await request(secret, "gzip-bomb", { headers: { "accept-encoding": "gzip" }, body: "" }).response;
    const { body, broken } = await readAll(res);
    expect(broken).toBe(false);
    expect(body.equals(gzipBomb())).toBe(true);
    const requestId = res.headers["x-request-id"] as string;
    expect(res.trailers["x-tollgate-cost"]).toBe("1.00");
    expect(await usageOf(requestId)).toMatchObject({ status: "succeeded", units: 1000, amount: 1_000_000n });
    expect(await balanceOf(userId)).toBe("1.00");

    const lines = t
      .logs()
      .split("\n")
      .filter((line) => line.includes(requestId))
      .map((line) => JSON.parse(line) as { msg: string; inflatedBytes?: number; limitBytes?: number });
    const stopped = lines.find((line) => line.msg.includes("inflates past the limit read for units"));
    expect(stopped?.limitBytes).toBe(MAX_INFLATED_FOR_UNITS);
    // Stopped at the first inflated chunk past the limit, not at the 16 MiB the answer holds.
    expect(stopped?.inflatedBytes).toBeGreaterThan(MAX_INFLATED_FOR_UNITS);
    expect(stopped?.inflatedBytes).toBeLessThanOrEqual(MAX_INFLATED_FOR_UNITS + 64 * 1024);
    expect(lines.some((line) => line.msg.includes("a per-unit tool reported no units"))).toBe(true);

    // The gateway goes on reading the units of compressed answers within the limit.
    const next = await request(secret, "gzip-sse", { headers: { "accept-encoding": "gzip" }, body: "" }).response;
    await readAll(next);
    expect(await usageOf(next.headers["x-request-id"] as string)).toMatchObject({ status: "succeeded", units: 8 });
    await expectLedgerConsistent();
  });
});

describe("a stream that ends after the abandoned-call sweep refunded it", () => {
  for (const [toolId, settlement] of [
    ["drip", "a partial refund"],
    ["drip-per-call", "a completion"],
  ] as const) {
    it(`is served free, never charged again (${settlement})`, async () => {
      const { userId, secret } = await funded("2");
      const res = await request(secret, toolId, { body: "" }).response;
      await once(res, "data");
      // As a sweep would, once the call has outlived the abandoned-call window.
      expect((await refundAbandonedCalls(t.database.db, { olderThan: new Date(Date.now() + 60_000), now: new Date() })).calls).toBe(1);
      open("drip");
      const { broken } = await readAll(res);
      expect(broken).toBe(false);
      expect(res.trailers["x-tollgate-cost"]).toBe("0.00");
      expect(await usageOf(res.headers["x-request-id"] as string)).toMatchObject({ status: "refunded", amount: 0n });
      expect(await balanceOf(userId)).toBe("2.00");
      await expectLedgerConsistent();
    });
  }
});

describe("an Idempotency-Key on a streamed call", () => {
  /** Retries until the first call's stream is settled: until then a retry is refused as in progress. */
  async function retry(secret: string, toolId: string, key: string) {
    for (let tries = 0; ; tries++) {
      const res = await request(secret, toolId, { headers: { "idempotency-key": key }, body: "" }).response;
      const { body, broken } = await readAll(res);
      const code = res.statusCode === 409 ? (JSON.parse(body.toString()) as { error: { code: string } }).error.code : null;
      if (code !== "idempotency_in_progress" || tries >= 100) return { res, body, broken, code };
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it("once the charged stream has ended, answers a retry with 409 idempotency_stream_not_replayable, never charging it again", async () => {
    const { userId, secret } = await funded("2");
    const first = await request(secret, "trailer", { headers: { "idempotency-key": "stream-once-1" }, body: "" }).response;
    expect((await readAll(first)).body.toString()).toBe("counting the units");
    const again = await retry(secret, "trailer", "stream-once-1");
    expect(again.res.statusCode).toBe(409);
    expect(again.code).toBe("idempotency_stream_not_replayable");
    expect(await balanceOf(userId)).toBe("1.993");
    await expectLedgerConsistent();
  });

  it("once the stream broke and was refunded, lets a retry with the same key run afresh", async () => {
    const { userId, secret } = await funded("2");
    const first = await request(secret, "stall", { headers: { "idempotency-key": "stream-broke-1" }, body: "" }).response;
    expect((await readAll(first)).broken).toBe(true);
    const again = await retry(secret, "stall", "stream-broke-1");
    expect(again.res.statusCode).toBe(200);
    expect(again.body.toString()).toBe('data: {"n":1}\n\n');
    expect(await settledUsage(again.res.headers["x-request-id"] as string)).toMatchObject({ status: "refunded" });
    expect(await balanceOf(userId)).toBe("2.00");
  });
});

describe("request bodies", () => {
  it("stream to the upstream within the tool's maxRequestBytes", async () => {
    const { secret } = await funded("1");
    const { req, response } = request(secret, "small-body", { headers: { "content-type": "application/octet-stream" } });
    req.write(Buffer.alloc(600));
    req.end(Buffer.alloc(424));
    const res = await response;
    expect(res.statusCode).toBe(200);
    expect((await readAll(res)).body.toString()).toBe("received 1024 bytes");
  });

  it("over the limit get 413 body_too_large and cost nothing, declared or found while streaming", async () => {
    const { userId, secret } = await funded("1");
    const declared = await request(secret, "small-body", { headers: { "content-type": "text/plain" }, body: "x".repeat(1025) }).response;
    expect(declared.statusCode).toBe(413);
    expect(JSON.parse((await readAll(declared)).body.toString()).error.code).toBe("body_too_large");

    const { req, response } = request(secret, "small-body", { headers: { "content-type": "text/plain", "transfer-encoding": "chunked" } });
    req.write("x".repeat(1000));
    req.end("x".repeat(100));
    const chunked = await response;
    expect(chunked.statusCode).toBe(413);
    expect(await balanceOf(userId)).toBe("1.00");
    await expectLedgerConsistent();
  });

  it("are not read before the API key is checked: a call without a key is refused while its body is still coming", async () => {
    const { req, response } = request(null, "small-body", { headers: { "content-type": "text/plain", "content-length": "1000000" } });
    req.write("the first bytes of a body that never ends");
    const res = await response;
    expect(res.statusCode).toBe(401);
    expect(JSON.parse((await readAll(res)).body.toString()).error.code).toBe("invalid_key");
    req.destroy();
  });
});

describe("a caller whose own request body breaks after the streamed answer began", () => {
  for (const [toolId, charged, balanceAfter] of [
    ["early-per-call", 10_000n, "0.99"],
    ["early-per-unit", 1_000_000n, "0.00"],
  ] as const) {
    it(`is charged as a caller who leaves when it hangs up with its body unfinished, not refunded as a tool failure (${toolId})`, async () => {
      const { userId, secret } = await funded("1");
      const { req, response } = request(secret, toolId, { headers: { "content-type": "text/plain", "transfer-encoding": "chunked" } });
      req.write("the start of a body that is never finished");
      const res = await response;
      expect(res.statusCode).toBe(200);
      await once(res, "data");
      const requestId = res.headers["x-request-id"] as string;
      res.on("error", () => undefined);
      const closed = new Promise((resolve) => res.once("close", resolve));
      req.destroy();
      await closed;
      // The units would have come at the answer's end, which the broken exchange never reaches: the whole hold.
      expect(await settledUsage(requestId)).toMatchObject({ status: "succeeded", amount: charged });
      expect(await balanceOf(userId)).toBe(balanceAfter);
      open(`/${toolId}`);
      await expectLedgerConsistent();
    });
  }

  it("is charged when it sends more than the tool accepts once the answer is streaming, and its stream breaks", async () => {
    const { userId, secret } = await funded("1");
    const { req, response } = request(secret, "early-small-body", { headers: { "content-type": "text/plain", "transfer-encoding": "chunked" } });
    req.write("x".repeat(100));
    const res = await response;
    expect(res.statusCode).toBe(200);
    await once(res, "data");
    const requestId = res.headers["x-request-id"] as string;
    req.write("x".repeat(2000));
    expect((await readAll(res)).broken).toBe(true);
    expect(await settledUsage(requestId)).toMatchObject({ status: "succeeded", amount: 10_000n });
    expect(await balanceOf(userId)).toBe("0.99");
    req.destroy();
    open("/early-small-body");
    await expectLedgerConsistent();
  });
});

describe("calling the upstream while the hold commits (decision 038)", () => {
  /** A call of a per-call tool (0.01, answered as a stream); whether it reached the upstream shows in `seen`. */
  async function callTool(secret: string, toolId = "headers", base = gateway) {
    const res = await request(secret, toolId, { body: "", base }).response;
    return { status: res.statusCode, requestId: String(res.headers["x-request-id"]), body: (await readAll(res)).body.toString() };
  }
  /** Spends from the balance where this server's gateway does not see it: another server's charge, by the same statements. */
  async function spendElsewhere(userId: number, apiKeyId: number, amount: bigint, db: Db = t.database.db) {
    const at = new Date();
    const [charged] = await chargeBatch(db, [{ userId, apiKeyId, toolId: "echo", units: 1, amount, requestId: `elsewhere-${randomUUID()}`, at }]);
    if (!charged?.ok) throw new Error("could not spend elsewhere");
    await completeBatch(db, [{ usageId: charged.usageId, httpStatus: 200, latencyMs: 1, at }]);
  }
  /**
   * Holds the user's row locked (on PGlite: every statement waits), so the holds of their calls wait
   * until `release`; with `spending`, in a transaction of another server that spends that much of
   * the balance when it commits.
   */
  async function lockUser(userId: number, inLock?: (tx: Db) => Promise<unknown>): Promise<() => Promise<void>> {
    let release = () => undefined as void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked = () => undefined as void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const done = t.database.db.transaction(async (tx) => {
      await tx.execute(sql`select id from users where id = ${userId} for update`);
      if (inLock) await inLock(tx as unknown as Db);
      locked();
      await released;
    });
    await isLocked;
    return async () => {
      release();
      await done;
    };
  }
  async function untilUpstreamCalls(count: number) {
    for (let tries = 0; upstreamCallCount() < count && tries < 200; tries++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(upstreamCallCount()).toBe(count);
    // Nothing more arrives while the holds wait.
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(upstreamCallCount()).toBe(count);
  }
  async function fundedWithKeyId(balance: string) {
    const funded_ = await funded(balance);
    const [key] = await t.database.db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.userId, funded_.userId));
    return { ...funded_, apiKeyId: key!.id };
  }

  it("a hold refused after the upstream answered: the caller gets 402 and nothing of the answer, nothing is charged; the next call waits for its hold", async () => {
    const { userId, apiKeyId, secret } = await fundedWithKeyId("0.02");
    expect((await callTool(secret)).status).toBe(200);

    const before = upstreamCallCount();
    // This server saw 0.01 left after that hold; another server spends it, and this call's hold waits for that.
    const release = await lockUser(userId, (tx) => spendElsewhere(userId, apiKeyId, 10_000n, tx));
    let answered = false;
    const refused = callTool(secret).finally(() => (answered = true));
    // The balance seen covered it, so the upstream was called (and answered) while the hold waits…
    await untilUpstreamCalls(before + 1);
    // …and nothing of that answer reached the caller.
    expect(answered).toBe(false);
    await release();
    const { status, body, requestId } = await refused;
    expect(status).toBe(402);
    expect(JSON.parse(body).error.code).toBe("insufficient_balance");
    expect(seen.has(requestId)).toBe(true);
    expect(await usageOf(requestId)).toBeUndefined();

    // A hold refused for the balance forgets the balance seen: the next call is refused before the upstream sees it.
    const next = await callTool(secret);
    expect(next.status).toBe(402);
    expect(seen.has(next.requestId)).toBe(false);
    expect(await balanceOf(userId)).toBe("0.00");
    await expectLedgerConsistent();
  });

  it("starts no more calls early than the balance seen covers: 10 at once against 0.04 seen and 0.02 left, 4 reach the upstream, 2 are served", async () => {
    const { userId, apiKeyId, secret } = await fundedWithKeyId("0.05");
    expect((await callTool(secret)).status).toBe(200);
    await spendElsewhere(userId, apiKeyId, 20_000n);

    const before = upstreamCallCount();
    const release = await lockUser(userId);
    const calls = Array.from({ length: 10 }, () => callTool(secret));
    await untilUpstreamCalls(before + 4);
    await release();
    const results = await Promise.all(calls);
    expect(results.filter((r) => r.status === 200)).toHaveLength(2);
    expect(results.filter((r) => r.status === 402)).toHaveLength(8);
    expect(upstreamCallCount()).toBe(before + 4);
    expect(await balanceOf(userId)).toBe("0.00");
    await expectLedgerConsistent();
  });

  it("an answer that breaks while its hold commits is a failed call: 502, refunded", async () => {
    const { userId, secret } = await funded("1");
    expect((await callTool(secret)).status).toBe(200);
    const before = upstreamCallCount();
    const release = await lockUser(userId);
    const broken = callTool(secret, "broken-at-once");
    await untilUpstreamCalls(before + 1);
    await release();
    const { status, body, requestId } = await broken;
    expect(status).toBe(502);
    expect(JSON.parse(body).error.code).toBe("upstream_failed");
    expect(await settledUsage(requestId)).toMatchObject({ status: "refunded" });
    expect(await balanceOf(userId)).toBe("0.99");
    await expectLedgerConsistent();
  });

  it("a caller who leaves while an early call's hold commits is not charged", async () => {
    const { userId, secret } = await funded("1");
    expect((await callTool(secret)).status).toBe(200);
    const known = new Set(seen.keys());
    const release = await lockUser(userId);
    const { req, response } = request(secret, "headers", { body: "" });
    // This caller goes away on purpose: its request fails with a reset.
    response.catch(() => undefined);
    await untilUpstreamCalls(known.size + 1);
    const [requestId] = [...seen.keys()].filter((id) => !known.has(id));
    req.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await release();
    // The hold commits after the lock goes, then the call is settled.
    for (let tries = 0; (await usageOf(requestId!))?.status !== "refunded" && tries < 200; tries++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(await usageOf(requestId!)).toMatchObject({ status: "refunded", amount: 0n });
    expect(await balanceOf(userId)).toBe("0.99");
    await expectLedgerConsistent();
  });

  /** Sets the key's spend limit as another server would, unannounced: this server's key cache still holds the key without one. */
  const setSpendLimitUnheard = (apiKeyId: number, micros: bigint | null) => (db: Db) => db.execute(sql`update api_keys set spend_limit = ${micros} where id = ${apiKeyId}`);
  /** Waits until no more calls reach the upstream for 150 ms. */
  async function upstreamQuiet() {
    for (let count = -1; count !== upstreamCallCount(); ) {
      count = upstreamCallCount();
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  }

  it("a hold refused for the key's spend limit forgets the balance seen: the next call waits for its hold", async () => {
    const { userId, apiKeyId, secret } = await fundedWithKeyId("1");
    expect((await callTool(secret)).status).toBe(200);
    const before = upstreamCallCount();
    const limited = await lockUser(userId, setSpendLimitUnheard(apiKeyId, 1n));
    const refused = callTool(secret);
    await untilUpstreamCalls(before + 1);
    await limited();
    expect((await refused).status).toBe(402);
    expect(JSON.parse((await refused).body).error.code).toBe("spend_limit_reached");

    await setSpendLimitUnheard(apiKeyId, null)(t.database.db);
    const release = await lockUser(userId);
    const next = callTool(secret);
    await untilUpstreamCalls(before + 1);
    await release();
    expect((await next).status).toBe(200);
    expect(await balanceOf(userId)).toBe("0.98");
    await expectLedgerConsistent();
  });

  it("a key changed less than a second ago never starts early, whatever the balance seen", async () => {
    const user = await createUserWithSession(t, { balance: "1" });
    const created = await t.app.inject({ method: "POST", url: "/api/v1/console/keys", headers: user.headers, payload: { name: "changes" } });
    const { secret, key } = created.json() as { secret: string; key: { id: number } };
    expect((await callTool(secret)).status).toBe(200);
    for (const spendLimit of ["5", null]) {
      const changed = await t.app.inject({ method: "PATCH", url: `/api/v1/console/keys/${key.id}`, headers: user.headers, payload: { spendLimit } });
      expect(changed.statusCode).toBe(200);
    }
    const before = upstreamCallCount();
    let release = await lockUser(user.userId);
    const waiting = callTool(secret);
    await untilUpstreamCalls(before);
    await release();
    expect((await waiting).status).toBe(200);

    t.clock.advance(1000);
    release = await lockUser(user.userId);
    const early = callTool(secret);
    await untilUpstreamCalls(before + 2);
    await release();
    expect((await early).status).toBe(200);
    await expectLedgerConsistent();
  });

  it("a tool whose operator turned early starts off always waits for its hold", async () => {
    const { userId, secret } = await funded("1");
    expect((await callTool(secret, "waits-for-hold")).status).toBe(200);
    const before = upstreamCallCount();
    const release = await lockUser(userId);
    const waiting = callTool(secret, "waits-for-hold");
    await untilUpstreamCalls(before);
    await release();
    expect((await waiting).status).toBe(200);
    expect(upstreamCallCount()).toBe(before + 1);
  });

  /**
   * The probe's race: rounds of a burst of 28 calls, each round's holds committing after the key's
   * spend limit was set elsewhere, the limit removed before the next round (and a paid call between).
   */
  async function raceRounds(gateways: string[]) {
    const { userId, apiKeyId, secret } = await fundedWithKeyId("10");
    let charged = 0;
    const known = upstreamCallCount();
    for (let round = 0; round < 12; round++) {
      // Calls the balance seen comes from, as the first calls of a burst that commit before the limit.
      for (const base of gateways) expect((await callTool(secret, "headers", base)).status).toBe(200);
      charged += gateways.length;
      const release = await lockUser(userId, setSpendLimitUnheard(apiKeyId, 1n));
      const burst = Array.from({ length: 28 }, (_, i) => callTool(secret, "headers", gateways[i % gateways.length]));
      await upstreamQuiet();
      await release();
      const results = await Promise.all(burst);
      expect(results.every((r) => r.status === 402)).toBe(true);
      await setSpendLimitUnheard(apiKeyId, null)(t.database.db);
      t.clock.advance(2000);
    }
    expect(await balanceOf(userId)).toBe(formatMoney(10_000_000n - BigInt(charged) * 10_000n));
    await expectLedgerConsistent();
    return { unpaid: upstreamCallCount() - known - charged };
  }

  it(`rounds of a burst raced by a spend limit get at most ${UNPAID_UPSTREAM_CALLS_PER_USER_AND_PROCESS} upstream calls served unpaid in all, not per round`, async () => {
    expect((await raceRounds([gateway])).unpaid).toBeLessThanOrEqual(UNPAID_UPSTREAM_CALLS_PER_USER_AND_PROCESS);
  });

  it("on two servers of one database, the same rounds get at most twice that", async () => {
    const other = await createTestApp({ TOOLS_CATALOG: t.config.toolsCatalog, METRICS_TOKEN }, { database: t.database, clock: t.clock });
    try {
      await other.app.listen({ port: 0, host: "127.0.0.1" });
      const otherGateway = `http://127.0.0.1:${(other.app.server.address() as AddressInfo).port}`;
      expect((await raceRounds([gateway, otherGateway])).unpaid).toBeLessThanOrEqual(2 * UNPAID_UPSTREAM_CALLS_PER_USER_AND_PROCESS);
    } finally {
      await other.close();
    }
  });

  it("a key with a spend limit always waits for its hold: a call over the limit never reaches the upstream", async () => {
    const { userId, secret } = await funded("1", { spendLimit: "0.01" });
    expect((await callTool(secret)).status).toBe(200);
    const refused = await callTool(secret);
    expect(refused.status).toBe(402);
    expect(JSON.parse(refused.body).error.code).toBe("spend_limit_reached");
    expect(seen.has(refused.requestId)).toBe(false);
    expect(await balanceOf(userId)).toBe("0.99");
    await expectLedgerConsistent();
  });
});

describe("concurrency", () => {
  it("200 concurrent streamed calls against a balance for 50 holds: 50 run, the rest get 402, the balance ends exact", async () => {
    // Each call holds 10 units × 0.001 and uses 4.
    const { userId, secret } = await funded("0.50");
    const held = gate("held");
    const calls = Array.from({ length: 200 }, () => request(secret, "held", { body: "" }).response);
    const answered = await Promise.all(calls);
    expect(answered.filter((r) => r.statusCode === 200)).toHaveLength(50);
    expect(answered.filter((r) => r.statusCode === 402)).toHaveLength(150);
    expect(await balanceOf(userId)).toBe("0.00");
    open("held");
    await held;
    const bodies = await Promise.all(answered.map((r) => readAll(r)));
    expect(bodies.filter((b) => b.broken)).toHaveLength(0);
    expect(await balanceOf(userId)).toBe("0.30");
    await expectLedgerConsistent();
  }, 120_000);
});
