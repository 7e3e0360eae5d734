import net from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../testing/test-app";

/* Issue 23 §3: what no route answers (unknown routes and methods, the router, Node's HTTP parser) uses the family's error shape. */

let t: TestApp;
let port: number;

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  port = (t.app.server.address() as AddressInfo).port;
});
afterAll(() => t.close());

const consoleError = (code: string) => ({ code, message: expect.any(String) });
const gatewayError = (code: string) => ({ error: { code, message: expect.any(String) } });

/** Sends raw bytes and reads the whole answer until the server closes the connection. */
function rawRequest(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.end(text));
    let answer = "";
    socket.on("data", (chunk: Buffer) => (answer += chunk.toString("latin1")));
    socket.on("close", () => resolve(answer));
    socket.on("error", reject);
  });
}

function parseAnswer(answer: string) {
  const [head = "", body = ""] = answer.split("\r\n\r\n");
  return { status: Number(head.split(" ")[1]), head, body: JSON.parse(body) as unknown };
}

describe("unknown routes and methods", () => {
  it.each([
    ["POST", "/api/v1/nope"],
    ["GET", "/api/v1/nope"],
    ["DELETE", "/api/v1/keys"],
    ["POST", "/somewhere"],
  ])("%s %s answers 404 {code, message}", async (method, url) => {
    const res = await t.app.inject({ method: method as "POST", url });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ code: "not_found", message: "server resource does not exist" });
  });

  it.each([
    ["DELETE", "/api/v1/health", "GET, HEAD"],
    ["PROPFIND", "/api/v1/health?verbose=1", "GET, HEAD"],
    ["GET", "/api/v1/console/redeem", "POST"],
    ["POST", "/api/v1/console/billing", "GET, HEAD"],
    ["PUT", "/api/v1/console/keys/12", "PATCH, DELETE"],
  ])("%s %s, a path the console API serves under other methods, answers 405 with Allow: %s", async (method, url, allow) => {
    const res = await t.app.inject({ method: method as "POST", url });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe(allow);
    expect(res.json()).toEqual({ code: "method_not_allowed", message: `this path does not take ${method}: it takes ${allow}` });
  });

  it.each([
    ["POST", "/v1/nope"],
    ["GET", "/v1/nope"],
    ["DELETE", "/v1"],
  ])("%s %s answers 404 in the gateway's shape", async (method, url) => {
    const res = await t.app.inject({ method: method as "POST", url });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual(gatewayError("unknown_tool"));
  });
});

describe("each route family's scope (issue 35 §3)", () => {
  it.each([
    ["POST", "/api/v1/tools/echo"],
    ["POST", "/api/v1/tools/qrcode/"],
  ])("%s %s, a tool called under the console API's prefix, is pointed to the gateway's /v1/tools", async (method, url) => {
    const res = await t.app.inject({ method: method as "POST", url, headers: { authorization: "Bearer tg_x", "content-type": "application/json" }, payload: "{}" });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      code: "not_found",
      message: `server resource does not exist: the tools are called at /v1/tools/<tool id> (here ${url.replace("/api/v1/tools/", "/v1/tools/")}), without /api`,
    });
  });

  it.each([
    ["GET", "/api/other"],
    ["GET", "/api/v1"],
    // A mistyped console route under user-info is no tool: no pointer to /v1/tools/user-info/x.
    ["GET", "/api/v1/tools/user-info/x"],
    ["HEAD", "/api/v1/nope"],
  ])("%s %s is the console API's 404, not a page", async (method, url) => {
    const res = await t.app.inject({ method: method as "GET", url });
    expect(res.statusCode).toBe(404);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    if (method === "GET") expect(res.json()).toEqual({ code: "not_found", message: "server resource does not exist" });
  });

  it.each([
    ["GET", "/v1/"],
    ["HEAD", "/v1/nope"],
    ["POST", "/v1/tools/"],
  ])("%s %s is the gateway's 404", async (method, url) => {
    const res = await t.app.inject({ method: method as "GET", url });
    expect(res.statusCode).toBe(404);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    if (method !== "HEAD") expect(res.json()).toEqual(gatewayError("unknown_tool"));
  });

  it("leaves GET /v1 and /api, outside both families' paths, to the site's pages", async () => {
    for (const url of ["/v1", "/api"]) {
      const res = await t.app.inject({ method: "GET", url });
      expect(res.statusCode).toBe(404);
      // No build is served in this test: the site's 404 is plain text, never an API's JSON.
      expect(res.headers["content-type"]).toMatch(/^text\/plain/);
    }
  });

  it("sends the request id and the security headers on every family's 404", async () => {
    for (const url of ["/api/v1/nope", "/v1/nope", "/somewhere"]) {
      const res = await t.app.inject({ method: "POST", url });
      expect(res.statusCode).toBe(404);
      expect(res.headers["x-request-id"]).toEqual(expect.any(String));
      expect(res.headers["x-content-type-options"]).toBe("nosniff");
      expect(res.headers["content-security-policy"]).toContain("default-src 'self'");
    }
  });

  it("reads an Idempotency-Key under /api only: a malformed one is refused there, also on an unknown path, and ignored elsewhere", async () => {
    const badKey = { "idempotency-key": "bad key!" };
    const api = await t.app.inject({ method: "POST", url: "/api/v1/nope", headers: badKey, payload: {} });
    expect(api.statusCode).toBe(400);
    expect(api.json()).toMatchObject({ code: "invalid_idempotency_key", message: expect.stringMatching(/Idempotency-Key/) });
    const site = await t.app.inject({ method: "POST", url: "/somewhere", headers: badKey, payload: {} });
    expect(site.statusCode).toBe(404);
    expect(site.json()).toEqual(consoleError("not_found"));
    // The gateway reads its own (per API key, once the key is admitted); an unknown route never gets that far.
    const gateway = await t.app.inject({ method: "POST", url: "/v1/nope", headers: badKey, payload: {} });
    expect(gateway.statusCode).toBe(404);
    expect(gateway.json()).toEqual(gatewayError("unknown_tool"));
  });
});

describe("the router's own errors", () => {
  it("answers a malformed percent-encoding with 400 in each family's shape", async () => {
    const gateway = await t.app.inject({ method: "GET", url: "/v1/tools/x/%zz" });
    expect(gateway.statusCode).toBe(400);
    expect(gateway.json()).toEqual(gatewayError("bad_request"));
    const api = await t.app.inject({ method: "GET", url: "/api/v1/console/keys/%zz" });
    expect(api.statusCode).toBe(400);
    expect(api.json()).toEqual(consoleError("bad_request"));
  });

  it("answers a path parameter too long with 414 in each family's shape", async () => {
    const gateway = await t.app.inject({ method: "POST", url: `/v1/tools/${"x".repeat(200)}` });
    expect(gateway.statusCode).toBe(414);
    expect(gateway.json()).toEqual(gatewayError("uri_too_long"));
    const api = await t.app.inject({ method: "PATCH", url: `/api/v1/console/keys/${"1".repeat(200)}`, payload: {} });
    expect(api.statusCode).toBe(414);
    expect(api.json()).toEqual(consoleError("uri_too_long"));
  });

  it("answers a GET or HEAD whose path parameter is too long with 414 too, as PATCH, not 404 as if the resource were missing", async () => {
    const long = "x".repeat(200);
    for (const method of ["GET", "HEAD"] as const) {
      const api = await t.app.inject({ method, url: `/api/v1/console/calls/${long}` });
      expect(api.statusCode, method).toBe(414);
      if (method === "GET") expect(api.json()).toEqual(consoleError("uri_too_long"));
    }
    const patch = await t.app.inject({ method: "PATCH", url: `/api/v1/console/keys/${long}`, payload: {} });
    const get = await t.app.inject({ method: "GET", url: `/api/v1/console/calls/${long}?x=1` });
    expect(get.statusCode).toBe(patch.statusCode);
    // A long segment where no route has a parameter is still unknown.
    expect((await t.app.inject({ method: "GET", url: `/api/v1/nope/${long}` })).statusCode).toBe(404);
    expect((await t.app.inject({ method: "GET", url: `/api/v1/console/calls/${"x".repeat(100)}` })).statusCode).not.toBe(414);
  });

  it("names body problems with stable codes", async () => {
    const tooLarge = await t.app.inject({ method: "POST", url: "/api/v1/console/keys", payload: "x".repeat(1_100_000), headers: { "content-type": "application/json" } });
    expect(tooLarge.statusCode).toBe(413);
    expect(tooLarge.json()).toEqual(consoleError("body_too_large"));
    const badJson = await t.app.inject({ method: "POST", url: "/api/v1/console/keys", payload: "{bad", headers: { "content-type": "application/json" } });
    expect(badJson.statusCode).toBe(400);
    expect(badJson.json()).toEqual(consoleError("bad_request"));
  });
});

describe("the HTTP parser's errors", () => {
  it("answers a malformed request with 400 {code, message}", async () => {
    const answer = parseAnswer(await rawRequest("GET /api/v1/health HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n"));
    expect(answer.status).toBe(400);
    expect(answer.head).toMatch(/content-type: application\/json/i);
    expect(answer.body).toEqual(consoleError("bad_request"));
  });

  it("answers a malformed gateway request in the gateway's shape", async () => {
    const answer = parseAnswer(await rawRequest("POST /v1/tools/echo HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n"));
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(gatewayError("bad_request"));
  });

  it("answers headers too large with 431 in the family's shape", async () => {
    const answer = parseAnswer(await rawRequest(`GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`));
    expect(answer.status).toBe(431);
    expect(answer.body).toEqual(consoleError("headers_too_large"));
  });
});
