import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ApiError, RETRY_STATUSES, api } from "../../src/web/lib/http";
import { useSession } from "../../src/web/lib/session-store";

interface Seen {
  method: string;
  url: string;
  idempotencyKey: string | undefined;
  authorization: string | undefined;
  body: string;
}

/**
 * A local server answering `/status/{code}/{times}` with that status `times` times per
 * Idempotency-Key (or per URL without one), then 200; it records every request it gets.
 */
const seen: Seen[] = [];
const server = http.createServer((request, response) => {
  let body = "";
  request.on("data", (chunk: Buffer) => (body += chunk.toString()));
  request.on("end", () => {
    const idempotencyKey = request.headers["idempotency-key"] as string | undefined;
    seen.push({ method: request.method!, url: request.url!, idempotencyKey, authorization: request.headers.authorization, body });
    const [, , code, times] = request.url!.split("/");
    const earlier = seen.filter((s) => s.url === request.url && s.idempotencyKey === idempotencyKey).length - 1;
    const status = earlier < Number(times) ? Number(code) : 200;
    response.writeHead(status, { "content-type": "application/json" });
    response.end(JSON.stringify(status === 200 ? { ok: true, attempt: earlier + 1 } : { code: "failed", message: `status ${status}` }));
  });
});
let base = "";

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
afterEach(() => {
  seen.length = 0;
  useSession.setState({ token: null });
});

const requestsTo = (url: string) => seen.filter((s) => s.url === url);

describe("the HTTP client's retry rule (SPEC.md §7)", () => {
  it.each(RETRY_STATUSES)("retries a POST answered %i once, with the same Idempotency-Key", async (status) => {
    const url = `/status/${status}/1`;
    await expect(api(`${base}${url}`, { method: "POST", body: { n: 1 }, quiet: true })).resolves.toEqual({ ok: true, attempt: 2 });
    const requests = requestsTo(url);
    expect(requests).toHaveLength(2);
    expect(requests[0]!.idempotencyKey).toMatch(/^[A-Za-z0-9_-]{8,128}$/);
    expect(requests[1]!.idempotencyKey).toBe(requests[0]!.idempotencyKey);
    expect(requests[1]!.body).toBe(requests[0]!.body);
  });

  it.each(RETRY_STATUSES)("does not retry a GET answered %i", async (status) => {
    const url = `/status/${status}/1`;
    const failure = await api(`${base}${url}`, { quiet: true }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).status).toBe(status);
    expect((failure as ApiError).message).toBe(`status ${status}`);
    expect(requestsTo(url)).toHaveLength(1);
    expect(requestsTo(url)[0]!.idempotencyKey).toBeUndefined();
  });

  it("retries a POST only once", async () => {
    const url = "/status/503/5";
    const failure = await api(`${base}${url}`, { method: "POST", quiet: true }).catch((e: unknown) => e);
    expect((failure as ApiError).status).toBe(503);
    expect(requestsTo(url)).toHaveLength(2);
  });

  it("retries a PATCH once too", async () => {
    const url = "/status/502/1";
    await expect(api(`${base}${url}`, { method: "PATCH", body: {}, quiet: true })).resolves.toEqual({ ok: true, attempt: 2 });
    expect(requestsTo(url)).toHaveLength(2);
  });

  it.each([400, 404, 422, 501])("does not retry a POST answered %i", async (status) => {
    const url = `/status/${status}/1`;
    const failure = await api(`${base}${url}`, { method: "POST", quiet: true }).catch((e: unknown) => e);
    expect((failure as ApiError).status).toBe(status);
    expect(requestsTo(url)).toHaveLength(1);
  });

  it("gives every logical request its own Idempotency-Key", async () => {
    await api(`${base}/status/200/0`, { method: "POST", quiet: true });
    await api(`${base}/status/200/0`, { method: "POST", quiet: true });
    const [first, second] = requestsTo("/status/200/0");
    expect(first!.idempotencyKey).not.toBe(second!.idempotencyKey);
  });

  it("sends a PUT the Idempotency-Key its form gives, and none of its own", async () => {
    await api(`${base}/status/200/0`, { method: "PUT", body: {}, quiet: true, idempotencyKey: "form-key-1" });
    await api(`${base}/status/200/0`, { method: "PUT", body: {}, quiet: true });
    expect(requestsTo("/status/200/0").map((r) => [r.method, r.idempotencyKey])).toEqual([
      ["PUT", "form-key-1"],
      ["PUT", undefined],
    ]);
  });

  it("sends the bearer token when there is one, and none otherwise", async () => {
    await api(`${base}/status/200/0`, { quiet: true });
    useSession.setState({ token: "a-session-token" });
    await api(`${base}/status/200/0`, { quiet: true });
    expect(requestsTo("/status/200/0").map((s) => s.authorization)).toEqual([undefined, "Bearer a-session-token"]);
  });
});
