import http from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { echo } from "./echo";
import { httpUpstream } from "./http-upstream";
import { pinyin } from "./pinyin";
import { qrcode } from "./qrcode";
import { UpstreamError, type ToolRequest, type UpstreamRequest } from "./types";

function request(body: unknown, overrides: Partial<ToolRequest> = {}): ToolRequest {
  return {
    method: "POST",
    subpath: "",
    query: "",
    contentType: "application/json",
    accept: undefined,
    body: Buffer.from(typeof body === "string" ? body : JSON.stringify(body)),
    signal: new AbortController().signal,
    ...overrides,
  };
}

describe("built-in tools", () => {
  it("echo returns the body and content type it was sent", async () => {
    const res = await echo(request({ hello: "世界" }));
    expect(res.status).toBe(200);
    expect(res.contentType).toBe("application/json");
    expect(JSON.parse(res.body.toString())).toEqual({ hello: "世界" });
  });

  it("qrcode renders a PNG and an SVG", async () => {
    const png = await qrcode(request({ text: "https://example.com" }));
    expect(png.contentType).toBe("image/png");
    expect((png.body as Buffer).subarray(1, 4).toString()).toBe("PNG");
    const svg = await qrcode(request({ text: "hi", format: "svg", size: 128 }));
    expect(svg.contentType).toBe("image/svg+xml");
    expect(svg.body).toMatch(/^<svg/);
  });

  it("qrcode answers bad input with 400 and a reason", async () => {
    expect((await qrcode(request({}))).status).toBe(400);
    const res = await qrcode(request({ text: "x", format: "gif" }));
    expect(res.status).toBe(400);
    expect(res.body).toContain('format must be \\"png\\" or \\"svg\\"');
    expect((await qrcode(request("not json"))).status).toBe(400);
  });

  it.each([
    { label: "a lone surrogate", text: "\ud800", message: /lone surrogate/ },
    { label: "text within 2,000 characters but over a QR code's capacity (500 emoji hearts)", text: "❤️".repeat(500), message: /too long to fit in a QR code/ },
  ])("qrcode answers $label with 400 and a clear message", async ({ text, message }) => {
    const res = await qrcode(request({ text }));
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body.toString()).error).toEqual({ code: "invalid_request", message: expect.stringMatching(message) });
  });

  it("pinyin converts text and reports one unit per Chinese character", async () => {
    const res = await pinyin(request({ text: "汉语 pinyin 拼音", tone: "num" }));
    expect(res.status).toBe(200);
    expect(res.units).toBe(4);
    const body = JSON.parse(res.body.toString());
    expect(body.characters).toBe(4);
    expect(body.syllables.filter((s: string) => /\d$/.test(s))).toEqual(["han4", "yu3", "pin1", "yin1"]);
    expect((await pinyin(request({ text: "" }))).status).toBe(400);
  });

  it("pinyin charges only the characters it reads: one it has no pinyin for is kept as written, uncharged", async () => {
    // 𠀀 and 𪚥 (CJK Extension B) and 㐀 (Extension A) are Han script but have no reading in pinyin-pro.
    const res = await pinyin(request({ text: "𠀀𪚥中〇㐀" }));
    expect(res.units).toBe(2);
    expect(JSON.parse(res.body.toString())).toEqual({ pinyin: "𠀀𪚥 zhōng líng 㐀", syllables: ["𠀀𪚥", "zhōng", "líng", "㐀"], characters: 2 });
  });

  it.each([
    { label: "a product name and digits", text: "我用iPhone 15打电话", pinyin: "wǒ yòng iPhone 15 dǎ diàn huà", syllables: ["wǒ", "yòng", "iPhone 15", "dǎ", "diàn", "huà"] },
    { label: "Latin words between spaces", text: "汉语 pinyin 拼音", pinyin: "hàn yǔ pinyin pīn yīn", syllables: ["hàn", "yǔ", "pinyin", "pīn", "yīn"] },
    { label: "punctuation", text: "你好, 世界!", pinyin: "nǐ hǎo, shì jiè!", syllables: ["nǐ", "hǎo", ",", "shì", "jiè", "!"] },
    { label: "brackets and Chinese punctuation", text: "价格(¥12.5)，好。", pinyin: "jià gé (¥12.5)， hǎo。", syllables: ["jià", "gé", "(¥12.5)，", "hǎo", "。"] },
    { label: "no Chinese at all", text: "Hello, world! 42", pinyin: "Hello, world! 42", syllables: ["Hello, world! 42"] },
    { label: "line breaks and tabs", text: "第1行\n\tend", pinyin: "dì 1 xíng\n\tend", syllables: ["dì", "1", "xíng", "end"] },
  ])("pinyin keeps text that is not Chinese as it is: $label", async ({ text, pinyin: expected, syllables }) => {
    const res = await pinyin(request({ text }));
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.toString())).toEqual({ pinyin: expected, syllables, characters: text.match(/\p{Script=Han}/gu)?.length ?? 0 });
  });
});

describe("http upstream", () => {
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        if (req.url?.startsWith("/slow")) return; // never answers
        if (req.url?.startsWith("/hangup")) return req.socket.destroy();
        if (req.url?.startsWith("/fail")) {
          res.writeHead(500, { "content-type": "application/json" });
          return res.end('{"error":"boom"}');
        }
        res.writeHead(200, { "content-type": "application/json", "x-tool-units": "3" });
        res.end(JSON.stringify({ method: req.method, url: req.url, key: req.headers["x-api-key"], body }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  const config = (pathname: string, timeoutMs = 2000) => ({
    type: "http" as const,
    url: `${base}${pathname}`,
    method: "ANY" as const,
    headers: { "x-api-key": "upstream-secret" },
    timeoutMs,
    connectTimeoutMs: 2000,
    idleTimeoutMs: 2000,
    totalTimeoutMs: 5000,
    maxRequestBytes: 1024,
    startEarly: true,
  });
  const upstreams: { close(): Promise<void> }[] = [];
  afterAll(() => Promise.all(upstreams.map((u) => u.close())));
  const httpCall = (pathname: string, toolRequest: ToolRequest, timeoutMs?: number) => {
    const upstream = httpUpstream(config(pathname, timeoutMs), pino({ level: "silent" }));
    upstreams.push(upstream);
    const call: UpstreamRequest = { ...toolRequest, headers: { "content-type": "application/json" }, requestId: "test-request" };
    return upstream.run(call) as Promise<{ status: number; units?: number; body: Buffer }>;
  };

  it("forwards method, sub-path, query, body and configured headers, and reports units", async () => {
    const res = await httpCall("/api", request({ a: 1 }, { method: "PUT", subpath: "/items/7", query: "x=1" }));
    expect(res.status).toBe(200);
    expect(res.units).toBe(3);
    expect(JSON.parse(res.body.toString())).toEqual({ method: "PUT", url: "/api/items/7?x=1", key: "upstream-secret", body: '{"a":1}' });
  });

  it("passes an upstream 500 through as a response, for the gateway not to charge", async () => {
    const res = await httpCall("/fail", request({}));
    expect(res.status).toBe(500);
  });

  it("leaves units unknown when the upstream does not report them, not zero", async () => {
    const res = await httpCall("/fail", request({}));
    expect(res.units).toBeUndefined();
  });

  it("turns a timeout into an UpstreamError of kind timeout", async () => {
    await expect(httpCall("/slow", request({}), 200)).rejects.toMatchObject({ kind: "timeout" });
  });

  it("turns a closed connection into an UpstreamError of kind failed", async () => {
    const error = await httpCall("/hangup", request({})).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).kind).toBe("failed");
  });
});
