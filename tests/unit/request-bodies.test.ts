/**
 * Bodies that never end (issue 23 §10): a dripped body is cut off at REQUEST_TIMEOUT_SECONDS, and
 * bodies held open cannot take more memory than BODY_MEMORY_MB together, while /api/v1/health
 * keeps answering.
 */
import net from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../src/server/testing/test-app";
import { metricSamples, TEST_METRICS_TOKEN } from "../../src/server/testing/metrics";
import { createUserWithSession } from "../../src/server/testing/users";

let t: TestApp;
let port: number;
let apiKey: string;

beforeAll(async () => {
  t = await createTestApp({ REQUEST_TIMEOUT_SECONDS: "2", BODY_MEMORY_MB: "1", LOG_LEVEL: "warn", METRICS_TOKEN: TEST_METRICS_TOKEN });
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  port = (t.app.server.address() as AddressInfo).port;
  const user = await createUserWithSession(t, { balance: "1" });
  const res = await t.app.inject({ method: "POST", url: "/api/v1/console/keys", headers: user.headers, payload: { name: "bodies" } });
  apiKey = res.json().secret;
});
afterAll(() => t.close());

interface OpenRequest {
  socket: net.Socket;
  /** Everything the server sent, once it closed the connection. */
  closed: Promise<string>;
}

/** A POST that declares `declared` bytes and sends `sent` of them at once. */
function openRequest(path: string, declared: number, sent: number, headers: Record<string, string> = {}): OpenRequest {
  const socket = net.connect(port, "127.0.0.1");
  let text = "";
  socket.setEncoding("latin1").on("data", (chunk: string) => (text += chunk));
  const closed = new Promise<string>((resolve) => socket.on("close", () => resolve(text)));
  socket.on("error", () => undefined);
  const head = Object.entries({ host: "127.0.0.1", "content-type": "application/json", "content-length": String(declared), ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n`);
  if (sent > 0) socket.write(Buffer.alloc(sent, 0x20));
  return { socket, closed };
}

async function health(): Promise<{ status: number; ms: number }> {
  const began = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/health`);
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - began };
}

describe("a dripped body", () => {
  it("is answered 408 and closed once REQUEST_TIMEOUT_SECONDS have passed, while health answers", async () => {
    const drip = openRequest("/api/v1/auth/code", 1000, 0);
    let dripped = 0;
    const timer = setInterval(() => {
      if (!drip.socket.destroyed) drip.socket.write(" ");
      dripped += 1;
    }, 200);
    expect((await health()).status).toBe(200);
    const answer = await drip.closed;
    clearInterval(timer);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    // Far from the 1000 bytes that would have finished it: the server, not the body, ended the request.
    expect(dripped).toBeLessThan(1000);
  });
});

describe("bodies held open", () => {
  it("hold no more than BODY_MEMORY_MB together: past it a body gets 503 in its route family's shape", async () => {
    const KB = 1024;
    const gateway = { authorization: `Bearer ${apiKey}` };
    const held = [openRequest("/v1/tools/echo", 500 * KB, 400 * KB, gateway), openRequest("/v1/tools/echo", 500 * KB, 400 * KB, gateway)];
    // Let the two held bodies arrive before the next ones push past the budget.
    await expect.poll(async () => (await health()).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const overGateway = openRequest("/v1/tools/echo", 500 * KB, 400 * KB, gateway);
    const overApi = openRequest("/api/v1/auth/code", 500 * KB, 400 * KB);
    const overSite = openRequest("/somewhere", 500 * KB, 400 * KB);

    const gatewayAnswer = await overGateway.closed.then((text) => text, () => "");
    const apiAnswer = await overApi.closed;
    expect(gatewayAnswer).toMatch(/^HTTP\/1\.1 503 /);
    expect(gatewayAnswer).toContain('{"error":{"code":"server_busy"');
    expect(apiAnswer).toMatch(/^HTTP\/1\.1 503 /);
    expect(apiAnswer).toContain('"code":"service_unavailable"');
    // A body sent to no route family's path counts against the same budget, refused in the console's shape.
    const siteAnswer = await overSite.closed;
    expect(siteAnswer).toMatch(/^HTTP\/1\.1 503 /);
    expect(siteAnswer).toContain('"code":"service_unavailable"');

    const during = await health();
    expect(during.status).toBe(200);
    console.info(`health answered in ${during.ms.toFixed(1)} ms while bodies were held`);

    // The held ones are cut off at the request timeout, and what they held is free again.
    for (const request of held) expect(await request.closed).toMatch(/^HTTP\/1\.1 408 /);
    const after = await fetch(`http://127.0.0.1:${port}/v1/tools/echo`, {
      method: "POST",
      headers: { ...gateway, "content-type": "application/json" },
      body: JSON.stringify({ text: "x".repeat(600 * KB) }),
    });
    expect(after.status).toBe(200);
    // Read the echo to its end: a 600 KB answer left unread can keep the server's side of the
    // connection writing, which made closing the app wait past the hook's limit on a loaded machine.
    expect((await after.arrayBuffer()).byteLength).toBeGreaterThan(600 * KB);
  });

  it("count a small body's declared length at once: past the budget it is refused before any of it arrives", async () => {
    const KB = 1024;
    const gateway = { authorization: `Bearer ${apiKey}` };
    const held = [openRequest("/v1/tools/echo", 500 * KB, 499 * KB, gateway), openRequest("/v1/tools/echo", 500 * KB, 499 * KB, gateway)];
    // Wait until the server holds what they sent (998 KB of the 1024), as an operator sees it. Probing
    // with bodies instead competed for the same budget: a probe admitted while a held body was still
    // arriving could push that body over and free its memory (seen in CI: every probe then fit).
    await expect.poll(async () => (await metricSamples(t.app)).get("tollgate_request_body_bytes_held"), { timeout: 10_000 }).toBe(998 * KB);
    const small = openRequest("/v1/tools/echo", 60 * KB, 0, gateway);
    const answer = await new Promise<string>((resolve) => small.socket.once("data", (chunk: string) => resolve(chunk)));
    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(answer).toContain('{"error":{"code":"server_busy"');
    small.socket.destroy();
    // A body small enough for what is left is served.
    const fits = await fetch(`http://127.0.0.1:${port}/v1/tools/echo`, { method: "POST", headers: { ...gateway, "content-type": "application/json" }, body: '{"n":1}' });
    expect(fits.status).toBe(200);
    await fits.arrayBuffer();
    for (const request of held) expect(await request.closed).toMatch(/^HTTP\/1\.1 408 /);
    await expect.poll(async () => (await metricSamples(t.app)).get("tollgate_request_body_bytes_held")).toBe(0);
  });
});
