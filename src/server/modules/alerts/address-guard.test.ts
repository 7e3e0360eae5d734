import http from "node:http";
import type { AddressInfo } from "node:net";
import type { LookupFunction } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isPublicAddress, webhookUrlProblem } from "./address-guard";
import { createWebhookSender } from "./webhook-sender";

/** A resolver that answers every name with one address, as a hostile DNS record would. */
const resolvesTo =
  (address: string): LookupFunction =>
  (_host, options, callback) => {
    const family = address.includes(":") ? 6 : 4;
    if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: object[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };

const BLOCKED = [
  ["loopback", "127.0.0.1"],
  ["loopback, elsewhere in 127/8", "127.5.6.7"],
  ["10/8", "10.1.2.3"],
  ["172.16/12", "172.16.0.1"],
  ["172.16/12, its top", "172.31.255.254"],
  ["192.168/16", "192.168.1.10"],
  ["link-local: cloud metadata", "169.254.169.254"],
  ["unspecified", "0.0.0.0"],
  ["carrier-grade NAT", "100.64.0.1"],
  ["IPv6 loopback", "::1"],
  ["IPv6 unique local fc00::/7", "fc00::1"],
  ["IPv6 unique local, fd00::/8", "fd12:3456::1"],
  ["IPv6 link-local", "fe80::1"],
  ["IPv4-mapped IPv6 loopback", "::ffff:127.0.0.1"],
  ["NAT64 of the metadata address", "64:ff9b::a9fe:a9fe"],
] as const;

describe("the webhook address guard, with loopback not admitted", () => {
  const sender = (address: string) => createWebhookSender({ allowLoopback: false, timeoutMs: 2000, resolve: resolvesTo(address) });

  it.each(BLOCKED)("refuses %s (%s) when a host name resolves to it, at connection time", async (_label, address) => {
    expect(isPublicAddress(address)).toBe(false);
    const s = sender(address);
    const result = await s.send("https://hooks.example.com/tollgate", {}, "{}");
    await s.close();
    expect(result).toEqual({
      ok: false,
      httpStatus: null,
      error: "hooks.example.com does not resolve to a public address",
      detail: expect.stringContaining(`resolves to ${address}`),
    });
  });

  it.each(BLOCKED)("refuses %s (%s) written as the URL's host", (_label, address) => {
    const host = address.includes(":") ? `[${address}]` : address;
    expect(webhookUrlProblem(`https://${host}/hook`, { allowLoopback: false })).toMatch(/is not a public address/);
  });

  it.each(["localhost", "localhost.", "LOCALHOST", "hooks.localhost"])("refuses the loopback name %s when the URL is saved", (host) => {
    expect(webhookUrlProblem(`https://${host}/hook`, { allowLoopback: false })).toBe(`webhook URL must not point at ${host.toLowerCase()}, which is not a public address`);
    expect(webhookUrlProblem(`https://${host}/hook`, { allowLoopback: true })).toBeNull();
  });

  it("admits a public address, and only https", () => {
    expect(isPublicAddress("203.0.114.9")).toBe(true);
    expect(isPublicAddress("2606:4700::1111")).toBe(true);
    expect(webhookUrlProblem("https://hooks.example.com/x", { allowLoopback: false })).toBeNull();
    expect(webhookUrlProblem("http://hooks.example.com/x", { allowLoopback: false })).toBe("webhook URL must be an https:// address");
    expect(webhookUrlProblem("http://127.0.0.1:8080/x", { allowLoopback: false })).toBe("webhook URL must be an https:// address");
    expect(webhookUrlProblem("https://user:pw@hooks.example.com/x", { allowLoopback: false })).toMatch(/user name or password/);
    expect(webhookUrlProblem("ftp://hooks.example.com/x", { allowLoopback: false })).toBe("webhook URL must be an https:// address");
  });

  it("refuses a name when any of its addresses is not public", async () => {
    const mixed: LookupFunction = (_h, _o, callback) =>
      (callback as unknown as (e: null, a: object[]) => void)(null, [
        { address: "203.0.114.9", family: 4 },
        { address: "10.0.0.5", family: 4 },
      ]);
    const s = createWebhookSender({ allowLoopback: false, timeoutMs: 2000, resolve: mixed });
    // The user sees that the name is refused, not what it resolves to on the server's side.
    expect((await s.send("https://hooks.example.com/", {}, "{}")).error).toBe("hooks.example.com does not resolve to a public address");
    await s.close();
  });
});

/** A resolver that fails as the system's does for a name it cannot resolve. */
const failsWith =
  (code: string): LookupFunction =>
  (host, _options, callback) =>
    callback(Object.assign(new Error(`getaddrinfo ${code} ${host}`), { code, syscall: "getaddrinfo", hostname: host }), "", 0);

describe("what a user is told of an address that fails", () => {
  const send = async (resolve: LookupFunction) => {
    const s = createWebhookSender({ allowLoopback: false, timeoutMs: 2000, resolve });
    const result = await s.send("https://db.internal/hook?token=abc", {}, "{}");
    await s.close();
    return result;
  };

  it("is the same whether the name is missing, unresolvable for now, or resolves to a refused address; the log gets why", async () => {
    const [missing, retry, privateOne] = [await send(failsWith("ENOTFOUND")), await send(failsWith("EAI_AGAIN")), await send(resolvesTo("10.0.0.5"))];
    for (const result of [missing, retry, privateOne]) {
      expect(result).toMatchObject({ ok: false, httpStatus: null, error: "db.internal does not resolve to a public address" });
    }
    expect([missing.detail, retry.detail, privateOne.detail]).toEqual([
      expect.stringContaining("ENOTFOUND: getaddrinfo ENOTFOUND db.internal"),
      expect.stringContaining("EAI_AGAIN: getaddrinfo EAI_AGAIN db.internal"),
      expect.stringContaining("resolves to 10.0.0.5"),
    ]);
  });

  it("names neither the address nor the system's error when the connection fails", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const s = createWebhookSender({ allowLoopback: true, timeoutMs: 2000 });
    const result = await s.send(`http://localhost:${port}/hook`, {}, "{}");
    await s.close();
    expect(result).toMatchObject({ ok: false, httpStatus: null, error: "could not connect to localhost", detail: expect.stringContaining("ECONNREFUSED") });
  });
});

describe("sending, with the operator's loopback setting on (a local receiver)", () => {
  let server: http.Server;
  let base = "";
  const hits: string[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      hits.push(req.url ?? "");
      req.resume();
      if (req.url === "/redirect") return res.writeHead(302, { location: "/target" }).end();
      if (req.url === "/huge") {
        res.writeHead(200);
        const chunk = Buffer.alloc(64 * 1024, 97);
        let sent = 0;
        const pump = () => {
          while (sent < 200 && res.write(chunk)) sent += 1;
          if (sent < 200) res.once("drain", pump);
          else res.end();
        };
        return pump();
      }
      if (req.url === "/silent") return;
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("does not follow a redirect: the 3xx is the answer, and a failure", async () => {
    const s = createWebhookSender({ allowLoopback: true, timeoutMs: 5000 });
    expect(await s.send(`${base}/redirect`, {}, "{}")).toEqual({ ok: false, httpStatus: 302, error: "the receiver answered 302" });
    expect(hits).not.toContain("/target");
    await s.close();
  });

  it("reads only the start of a long answer", async () => {
    const s = createWebhookSender({ allowLoopback: true, timeoutMs: 10_000 });
    expect(await s.send(`${base}/huge`, {}, "{}")).toEqual({ ok: true, httpStatus: 200, error: null });
    await s.close();
  });

  it("gives up on a receiver that does not answer", async () => {
    const s = createWebhookSender({ allowLoopback: true, timeoutMs: 300 });
    expect(await s.send(`${base}/silent`, {}, "{}")).toMatchObject({ ok: false, httpStatus: null, error: "no answer in time" });
    await s.close();
  });

  it("still refuses private addresses other than loopback", async () => {
    const s = createWebhookSender({ allowLoopback: true, timeoutMs: 2000, resolve: resolvesTo("192.168.0.1") });
    expect((await s.send("https://router.example.com/", {}, "{}")).error).toBe("router.example.com does not resolve to a public address");
    await s.close();
  });
});
