import { execFile } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatMoney } from "#shared/money";
import { usageRecords, users } from "../../db/schema/index";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { createUserWithSession } from "../../testing/users";

let t: TestApp;
let gatewayBase: string;
let upstream: http.Server;
/** Every request target the fake upstream received, with the operator's secret header it carried. */
const received: { url: string; secret: string | undefined }[] = [];
let secret = "";
let balanceUserId = 0;

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    received.push({ url: req.url ?? "", secret: req.headers["x-operator-secret"] as string | undefined });
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ path: req.url })));
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const upstreamBase = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "gateway-path-")), "tools.json");
  const handler = { type: "http", url: `${upstreamBase}/api/public?fixed=1`, method: "ANY", headers: { "x-operator-secret": "s3cret" } };
  fs.writeFileSync(
    file,
    JSON.stringify({ tools: [{ id: "weather", name: "Weather", description: "d", category: "c", price: "0.01", rateLimitPerMinute: 100_000, handler }] }),
  );
  t = await createTestApp({ TOOLS_CATALOG: file });
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  gatewayBase = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const user = await createUserWithSession(t, { balance: "1" });
  balanceUserId = user.userId;
  const res = await t.app.inject({ method: "POST", url: "/api/v1/console/keys", headers: user.headers, payload: { name: "paths" } });
  secret = res.json().secret;
});
afterAll(async () => {
  await t.close();
  upstream.closeAllConnections();
  upstream.close();
});

/** Sends the request target byte for byte, as an attacker's raw client would (no normalisation). */
function rawCall(target: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${gatewayBase}/`, { method: "POST", path: target, headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" } }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end("{}");
  });
}

async function balance(): Promise<string> {
  const [row] = await t.database.db.select({ balance: users.balance }).from(users).where(eq(users.id, balanceUserId));
  return formatMoney(row!.balance);
}

const TRAVERSALS = [
  "/v1/tools/weather/..%2F..%2Fadmin%2Fsecrets",
  "/v1/tools/weather/../../admin/secrets",
  "/v1/tools/weather/%2e%2e/%2e%2e/admin",
  "/v1/tools/weather/%2E%2E/admin",
  "/v1/tools/weather/.%2e/admin",
  "/v1/tools/weather/%2e./admin",
  "/v1/tools/weather/./secrets",
  "/v1/tools/weather/%2e/secrets",
  "/v1/tools/weather/%252e%252e/admin",
  "/v1/tools/weather/a%2Fb",
  "/v1/tools/weather/a%2fb",
  "/v1/tools/weather/..%5C..%5Cadmin",
  "/v1/tools/weather/..%5c..%5cadmin",
  "/v1/tools/weather/..\\..\\admin",
  "/v1/tools/weather//evil.example/admin",
  "/v1/tools/weather/a//b",
  "/v1/tools/weather/%2F%2Fevil.example",
  "/v1/tools/weather/a%00b",
  "/v1/tools/weather/a#../../admin",
  "/v1/tools/weather/ok?x=1#frag",
  // Servlet containers drop a segment's ";" parameters: "..;" climbs as ".." does.
  "/v1/tools/weather/..;/admin",
  "/v1/tools/weather/..;/..;/etc/passwd",
  "/v1/tools/weather/foo/..;jsessionid=1/admin",
  "/v1/tools/weather/%2e%2e;/admin",
  "/v1/tools/weather/.;/admin",
  // The absolute form, meant for proxies.
  "http://127.0.0.1:9/v1/tools/weather/abs",
];

describe("the caller's sub-path stays under the tool's URL", () => {
  it.each(TRAVERSALS)("refuses %s with 400 bad_path, sends nothing and charges nothing", async (target) => {
    const before = await balance();
    const seen = received.length;
    const usageBefore = (await t.database.db.select().from(usageRecords).where(eq(usageRecords.userId, balanceUserId))).length;
    const res = await rawCall(target);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: "bad_path" } });
    expect(received.length).toBe(seen);
    expect(await balance()).toBe(before);
    const usageAfter = (await t.database.db.select().from(usageRecords).where(eq(usageRecords.userId, balanceUserId))).length;
    expect(usageAfter).toBe(usageBefore);
  });

  it("passes a plain sub-path, a trailing slash, encoded characters and the query under the configured path", async () => {
    for (const [target, expected] of [
      ["/v1/tools/weather/v1/chat/completions?stream=true", "/api/public/v1/chat/completions?fixed=1&stream=true"],
      ["/v1/tools/weather/models/", "/api/public/models/?fixed=1"],
      ["/v1/tools/weather/city/%E6%9D%AD%E5%B7%9E?unit=c", "/api/public/city/%E6%9D%AD%E5%B7%9E?fixed=1&unit=c"],
      ["/v1/tools/weather/file.v2.json", "/api/public/file.v2.json?fixed=1"],
      ["/v1/tools/weather", "/api/public?fixed=1"],
    ] as const) {
      const res = await rawCall(target);
      expect(res.status, target).toBe(200);
      expect(JSON.parse(res.body).path).toBe(expected);
    }
    // Nothing else reached the upstream, ever: every path it saw sits under /api/public.
    expect(received.every((request) => request.url.startsWith("/api/public"))).toBe(true);
    expect(received.every((request) => request.secret === "s3cret")).toBe(true);
  });

  it("refuses curl's own unnormalised traversal (--path-as-is)", async () => {
    const run = promisify(execFile);
    const seen = received.length;
    const { stdout } = await run("curl", ["-s", "--path-as-is", "-X", "POST", "-H", `Authorization: Bearer ${secret}`, "-w", "\n%{http_code}", `${gatewayBase}/v1/tools/weather/../../admin/secrets`]);
    const [body, status] = stdout.split("\n");
    expect(status).toBe("400");
    expect(JSON.parse(body!)).toMatchObject({ error: { code: "bad_path" } });
    expect(received.length).toBe(seen);
  });
});
