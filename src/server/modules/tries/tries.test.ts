import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KeptTry, TryEvent } from "#shared/tries";
import { TRIES_PER_MINUTE, TRY_ANSWER_SHOWN_BYTES, TRY_BODY_MAX_BYTES, TRY_HISTORY_SIZE, TRY_KEPT_BODY_BYTES } from "#shared/tries";
import { callLog, toolGrants, users } from "../../db/schema/index";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { createUserWithSession, type TestUser } from "../../testing/users";
import { createApiKey, createUserWithKey } from "../../testing/keys";

/**
 * The console's "Try it" through the real app: a key named by id calls the gateway as an outside
 * caller would (admission, refusals, charge, the call log), the page gets a head, the body's parts
 * and a receipt, and never the key's secret nor the tool's cookies. A local fake upstream.
 */
let t: TestApp;
let upstream: http.Server;
let base: string;
/** Headers each upstream request arrived with, by path. */
const seenHeaders = new Map<string, http.IncomingHttpHeaders>();
let releaseStream: () => void = () => undefined;

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    seenHeaders.set(req.url ?? "", req.headers);
    req.resume();
    req.on("end", () => {
      const route = req.url ?? "";
      if (route.startsWith("/cookie")) return res.writeHead(200, { "content-type": "application/json", "set-cookie": "session=stolen; Path=/" }).end('{"ok":true}');
      if (route.startsWith("/big")) {
        res.writeHead(200, { "content-type": "text/plain" });
        return res.end("x".repeat(TRY_ANSWER_SHOWN_BYTES + 1000));
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: first\n\n");
      releaseStream = () => res.end("data: second\n\n");
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const upstreamBase = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const tool = (id: string, handler: object, extra: object = {}) => ({ id, name: id, description: id, category: "test", price: "0.01", rateLimitPerMinute: 100_000, handler, ...extra });
  const catalog = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "tries-")), "tools.json");
  fs.writeFileSync(
    catalog,
    JSON.stringify({
      tools: [
        tool("echo", { type: "builtin", name: "echo" }),
        tool("pinyin", { type: "builtin", name: "pinyin" }, { requiresApproval: true, price: "0.00002", unit: "character" }),
        tool("cookie", { type: "http", url: `${upstreamBase}/cookie` }),
        tool("big", { type: "http", url: `${upstreamBase}/big` }),
        tool("stream", { type: "http", url: `${upstreamBase}/stream` }),
        tool("qrcode", { type: "builtin", name: "qrcode" }, { price: "0.05" }),
      ],
    }),
  );
  t = await createTestApp({ TOOLS_CATALOG: catalog });
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await t.close();
  upstream.closeAllConnections();
  upstream.close();
});

const newKey = (user: TestUser, body: object = {}) => createApiKey(t, user, { name: "try", ...body });
const funded = (balance = "1", keyBody: object = {}) => createUserWithKey(t, { balance, key: { name: "try", ...keyBody } });

const tryIt = (user: TestUser, payload: object, headers: Record<string, string> = {}) =>
  t.app.inject({ method: "POST", url: "/api/v1/console/tries", headers: { ...user.headers, ...headers }, payload });

function events(payload: string): TryEvent[] {
  return payload
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as TryEvent);
}

/** The head, the body the data lines carry, and the end of a try's answer. */
function read(payload: string) {
  const all = events(payload);
  const head = all[0] as Extract<TryEvent, { type: "head" }>;
  const end = all.at(-1) as Extract<TryEvent, { type: "end" }>;
  expect(head.type).toBe("head");
  expect(end.type).toBe("end");
  const body = Buffer.concat(all.filter((e) => e.type === "data").map((e) => Buffer.from((e as { base64: string }).base64, "base64")));
  return { head, end, body, parts: all.length - 2 };
}

/** A gateway call whose request target goes out exactly as written. */
function rawCall(target: string, secret: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}/`, { method: "POST", path: target, headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    req.end("{}");
  });
}

async function balanceOf(userId: number): Promise<bigint> {
  const [row] = await t.database.db.select({ balance: users.balance }).from(users).where(eq(users.id, userId));
  return row!.balance;
}

async function rowFor(requestId: string) {
  for (let attempt = 0; attempt < 500; attempt++) {
    await t.app.callLog.drain();
    const [row] = await t.database.db.select().from(callLog).where(eq(callLog.requestId, requestId));
    if (row) return row;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no call log row for ${requestId}`);
}

describe("a try", () => {
  it("calls the tool with the key named by id, charges it as any call, and says what it cost and what is left", async () => {
    const { user, key } = await funded("1");
    const res = await tryIt(user, { keyId: key.id, toolId: "echo", body: '{"hello":"世界"}' });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toContain("application/x-ndjson");
    expect(res.payload).not.toContain(key.secret);
    const { head, end, body } = read(res.payload);
    expect(head).toMatchObject({ status: 200, contentType: expect.stringContaining("application/json") });
    expect(head.headers["x-tollgate-cost"]).toBe("0.01");
    expect(JSON.parse(body.toString("utf8"))).toEqual({ hello: "世界" });
    expect(end).toMatchObject({ outcome: "served", amount: "0.01", balance: "0.99", truncated: false });
    expect(end.totalMs).toBeGreaterThanOrEqual(0);
    const row = await rowFor(head.requestId);
    expect(row).toMatchObject({ userId: user.userId, apiKeyId: key.id, toolId: "echo", outcome: "served", amount: 10_000n, fromConsole: true, clientIp: "127.0.0.1" });
    const list = await t.app.inject({ method: "GET", url: "/api/v1/console/calls", headers: user.headers });
    expect(list.json().items[0]).toMatchObject({ requestId: head.requestId, fromConsole: true });
  });

  it("made by an outside caller is not marked as from the console", async () => {
    const { key } = await funded("1");
    const res = await t.app.inject({ method: "POST", url: "/v1/tools/echo", headers: { authorization: `Bearer ${key.secret}`, "content-type": "application/json" }, payload: "{}" });
    expect((await rowFor(res.headers["x-request-id"] as string)).fromConsole).toBe(false);
  });

  it("of a key that is not the user's, or deleted, is refused before any call", async () => {
    const { user, key } = await funded("1");
    const other = await funded("1");
    const res = await tryIt(user, { keyId: other.key.id, toolId: "echo", body: "{}" });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe("not_found");
    await t.app.inject({ method: "DELETE", url: `/api/v1/console/keys/${key.id}`, headers: user.headers });
    expect((await tryIt(user, { keyId: key.id, toolId: "echo", body: "{}" })).statusCode).toBe(404);
  });

  it("gets the refusals an outside call would: a disabled key, a tool needing approval, an address not allowed, a tool the key lacks", async () => {
    const { user, key } = await funded("1");
    await t.app.inject({ method: "PATCH", url: `/api/v1/console/keys/${key.id}`, headers: user.headers, payload: { enabled: false } });
    const disabled = read((await tryIt(user, { keyId: key.id, toolId: "echo", body: "{}" })).payload);
    expect(disabled.head.status).toBe(401);
    expect(JSON.parse(disabled.body.toString()).error.code).toBe("invalid_key");
    expect(disabled.end).toMatchObject({ outcome: "key_disabled", amount: "0.00", balance: "1.00" });

    const second = await newKey(user);
    const unapproved = read((await tryIt(user, { keyId: second.id, toolId: "pinyin", body: '{"text":"你好"}' })).payload);
    expect(unapproved.head.status).toBe(403);
    expect(JSON.parse(unapproved.body.toString()).error.code).toBe("tool_not_approved");
    await t.database.db.insert(toolGrants).values({ userId: user.userId, toolId: "pinyin", grantedAt: t.clock.now() });
    const approved = read((await tryIt(user, { keyId: second.id, toolId: "pinyin", body: '{"text":"你好"}' })).payload);
    expect(approved.head.status).toBe(200);
    expect(approved.end.amount).toBe("0.00004");

    const elsewhere = await newKey(user, { ipAllowlist: ["10.0.0.0/8"] });
    expect(JSON.parse(read((await tryIt(user, { keyId: elsewhere.id, toolId: "echo", body: "{}" })).payload).body.toString()).error.code).toBe("ip_not_allowed");
    const echoOnly = await newKey(user, { allowedTools: ["echo"] });
    expect(JSON.parse(read((await tryIt(user, { keyId: echoOnly.id, toolId: "cookie", body: "{}" })).payload).body.toString()).error.code).toBe("tool_not_allowed");
  });

  it("never passes the tool's cookies to the page, nor the try's token or the session to the tool", async () => {
    const { user, key } = await funded("1");
    const res = await tryIt(user, { keyId: key.id, toolId: "cookie", body: "{}" });
    expect(res.headers["set-cookie"]).toBeUndefined();
    expect(res.payload).not.toContain("stolen");
    const { head } = read(res.payload);
    expect(Object.keys(head.headers).sort()).toEqual(["content-length", "content-type", "x-tollgate-cost"]);
    const sent = seenHeaders.get("/cookie")!;
    expect(sent["x-tollgate-console-try"]).toBeUndefined();
    expect(sent.authorization).toBeUndefined();
  });

  it("streams a streamed answer to the page as it arrives", async () => {
    const { user, key } = await funded("1");
    const response = await fetch(`${base}/api/v1/console/tries`, {
      method: "POST",
      headers: { ...user.headers, "content-type": "application/json" },
      body: JSON.stringify({ keyId: key.id, toolId: "stream", body: "{}" }),
    });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("ZGF0YTogZmlyc3QKCg==")) text += (await reader.read()).value ?? "";
    expect(text).not.toContain('"type":"end"');
    releaseStream();
    for (let part = await reader.read(); !part.done; part = await reader.read()) text += part.value;
    const { body, end, parts } = read(text);
    expect(body.toString()).toBe("data: first\n\ndata: second\n\n");
    expect(parts).toBe(2);
    expect(end).toMatchObject({ outcome: "served", amount: "0.01" });
  });

  it("relays at most TRY_ANSWER_SHOWN_BYTES of an answer and says it was cut", async () => {
    const { user, key } = await funded("1");
    const { body, end } = read((await tryIt(user, { keyId: key.id, toolId: "big", body: "{}" })).payload);
    expect(body.length).toBe(TRY_ANSWER_SHOWN_BYTES);
    expect(end).toMatchObject({ truncated: true, amount: "0.01" });
  });

  it("with an Idempotency-Key sent twice is charged once: the second gets the first answer back", async () => {
    const { user, key } = await funded("1");
    const first = read((await tryIt(user, { keyId: key.id, toolId: "echo", body: '{"n":1}' }, { "idempotency-key": "try-once-0001" })).payload);
    const second = read((await tryIt(user, { keyId: key.id, toolId: "echo", body: '{"n":1}' }, { "idempotency-key": "try-once-0001" })).payload);
    expect(second.head.headers["idempotent-replayed"]).toBe("true");
    expect(second.body.toString()).toBe(first.body.toString());
    expect(second.end).toMatchObject({ outcome: "replayed", amount: "0.00", balance: "0.99" });
  });

  it("refuses a body over TRY_BODY_MAX_BYTES and more tries a minute than TRIES_PER_MINUTE from one session", async () => {
    const { user, key } = await funded("1");
    const tooBig = await tryIt(user, { keyId: key.id, toolId: "echo", body: "a".repeat(TRY_BODY_MAX_BYTES + 1) });
    expect(tooBig.statusCode).toBe(400);
    expect(tooBig.json().message).toContain("64 KB");
    for (let i = 1; i < TRIES_PER_MINUTE; i++) expect((await tryIt(user, { keyId: key.id, toolId: "echo", body: "{}" })).statusCode).toBe(200);
    const limited = await tryIt(user, { keyId: key.id, toolId: "echo", body: "{}" });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers["retry-after"]).toBeDefined();
    t.clock.advance(60_000);
    expect((await tryIt(user, { keyId: key.id, toolId: "echo", body: "{}" })).statusCode).toBe(200);
  });

  it("is kept: the last TRY_HISTORY_SIZE, newest first, bodies cut to TRY_KEPT_BODY_BYTES", async () => {
    const { user, key } = await funded("10");
    const long = JSON.stringify({ text: "字".repeat(2000) });
    for (let i = 0; i < TRY_HISTORY_SIZE; i++) await tryIt(user, { keyId: key.id, toolId: "echo", body: i === 0 ? long : `{"n":${i}}` });
    const last = read((await tryIt(user, { keyId: key.id, toolId: "echo", path: "?x=1", body: '{"n":"last"}' })).payload);
    const res = await t.app.inject({ method: "GET", url: "/api/v1/console/tries", headers: user.headers });
    const tries = res.json().tries as KeptTry[];
    expect(tries).toHaveLength(TRY_HISTORY_SIZE);
    expect(tries[0]).toMatchObject({
      id: last.end.tryId,
      keyId: key.id,
      toolId: "echo",
      method: "POST",
      path: "?x=1",
      contentType: "application/json",
      requestBody: '{"n":"last"}',
      requestTruncated: false,
      requestId: last.head.requestId,
      status: 200,
      responseBody: '{"n":"last"}',
      amount: "0.01",
      time: expect.stringMatching(/\+08:00$/),
    });
    // The first try (the long one) was the 21st newest: forgotten. Another long one is kept cut.
    expect(tries.some((kept) => kept.requestBody.length > 100)).toBe(false);
    await tryIt(user, { keyId: key.id, toolId: "echo", body: long });
    const cut = ((await t.app.inject({ method: "GET", url: "/api/v1/console/tries", headers: user.headers })).json().tries as KeptTry[])[0]!;
    expect(cut.requestTruncated).toBe(true);
    expect(cut.responseTruncated).toBe(true);
    expect(Buffer.byteLength(cut.requestBody)).toBeLessThanOrEqual(TRY_KEPT_BODY_BYTES);
    expect(long.startsWith(cut.requestBody)).toBe(true);
    const other = await createUserWithSession(t);
    expect((await t.app.inject({ method: "GET", url: "/api/v1/console/tries", headers: other.headers })).json().tries).toEqual([]);
  });

  it("holding text the database cannot store (a NUL) is kept, the NUL as U+FFFD, and its answer ends", async () => {
    const { user, key } = await funded("1");
    const body = '{"a":"\u0000"}';
    const { head, end, body: answered } = read((await tryIt(user, { keyId: key.id, toolId: "echo", body })).payload);
    expect(head.status).toBe(200);
    expect(answered.toString()).toBe(body);
    expect(end).toMatchObject({ outcome: "served", amount: "0.01", balance: "0.99" });
    const tries = (await t.app.inject({ method: "GET", url: "/api/v1/console/tries", headers: user.headers })).json().tries as KeptTry[];
    expect(tries).toHaveLength(1);
    expect(tries[0]).toMatchObject({ id: end.tryId, requestId: head.requestId, requestBody: '{"a":"\uFFFD"}', responseBody: '{"a":"\uFFFD"}', amount: "0.01" });
  });

  it("refuses a content type or path that breaks the text rule with 400 validation_failed, before any call", async () => {
    const { user, key } = await funded("1");
    for (const contentType of ["text/plain\u0000x", "text/plain\tx", "text/plain\u202ex"]) {
      const res = await tryIt(user, { keyId: key.id, toolId: "echo", contentType, body: "{}" });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: "validation_failed", message: expect.stringMatching(/^contentType: must not contain control characters/) });
    }
    const path = await tryIt(user, { keyId: key.id, toolId: "echo", path: "/a\u0000b", body: "{}" });
    expect(path.json()).toMatchObject({ code: "validation_failed", message: expect.stringMatching(/^path: must not contain control characters/) });
    expect((await t.app.inject({ method: "GET", url: "/api/v1/console/tries", headers: user.headers })).json().tries).toEqual([]);
    expect(await t.database.db.select().from(callLog).where(eq(callLog.userId, user.userId))).toEqual([]);
    expect(await balanceOf(user.userId)).toBe(1_000_000n);
  });

  it.each(["/../qrcode", "/%2e%2e/qrcode", "/..;x/qrcode", "/./x", "//qrcode"])(
    "refuses the path %s as the gateway does, 400 bad_path, before any call or charge",
    async (path) => {
      const { user, key } = await funded("1");
      const res = await tryIt(user, { keyId: key.id, toolId: "echo", path, body: '{"text":"hi"}' });
      expect(res.statusCode).toBe(400);
      // The gateway, sent the same target as is (fetch would resolve its dot-segments first).
      const gateway = await rawCall(`/v1/tools/echo${path}`, key.secret);
      expect(gateway.status).toBe(400);
      const { error } = JSON.parse(gateway.body) as { error: { code: string; message: string } };
      expect(error.code).toBe("bad_path");
      expect(res.json()).toEqual({ code: "bad_path", message: error.message });
      expect((await t.app.inject({ method: "GET", url: "/api/v1/console/tries", headers: user.headers })).json().tries).toEqual([]);
      expect(await balanceOf(user.userId)).toBe(1_000_000n);
    },
  );

  it("cannot be forged from outside: a request naming a made-up try token is a call without a key", async () => {
    const res = await t.app.inject({ method: "POST", url: "/v1/tools/echo", headers: { "x-tollgate-console-try": "a".repeat(43), "content-type": "application/json" }, payload: "{}" });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe("invalid_key");
  });
});
