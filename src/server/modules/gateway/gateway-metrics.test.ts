/**
 * The gateway's metrics that follow a call past its answer (issue 41): upstream errors by tool and
 * kind, streamed bytes, holds in flight, and refunds by reason, each read from /metrics after a
 * call that takes that path through a local upstream.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeys } from "../../db/schema/index";
import { freePort } from "../../testing/free-port";
import { metricSamples, metricsGrowth, TEST_METRICS_TOKEN } from "../../testing/metrics";
import { tempDataDir } from "../../testing/temp-dir";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { createUserWithSession } from "../../testing/users";
import { chargeBatch } from "../ledger/index";

let t: TestApp;
let upstream: http.Server;
let secret: string;
let userId: number;
/** Calls the `held` tool's upstream holds until the test answers them. */
const held: http.ServerResponse[] = [];
const STREAMED = "data: one\n\ndata: two\n\n";

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const route = new URL(req.url!, "http://x").pathname;
      if (route === "/fail") return res.writeHead(503).end("down");
      if (route === "/reset") return req.socket.destroy();
      if (route === "/slow") return;
      if (route === "/held") return void held.push(res);
      if (route === "/stream") return res.writeHead(200, { "content-type": "text/event-stream" }).end(STREAMED);
      const used = Number(new URL(req.url!, "http://x").searchParams.get("use") ?? 1);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ usage: { units: used } }));
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const closed = `http://127.0.0.1:${await freePort()}`;
  const tool = (id: string, url: string, extra: object = {}) => ({
    id,
    name: id,
    description: id,
    category: "test",
    price: "0.01",
    rateLimitPerMinute: 100_000,
    handler: { type: "http", url, timeoutMs: 300, totalTimeoutMs: 2000, ...extra },
  });
  const catalog = path.join(tempDataDir("gateway-metrics-"), "tools.json");
  fs.writeFileSync(
    catalog,
    JSON.stringify({
      tools: [
        tool("fail", `${base}/fail`),
        tool("reset", `${base}/reset`),
        tool("slow", `${base}/slow`),
        tool("closed", `${closed}/nothing`),
        tool("held", `${base}/held`),
        tool("stream", `${base}/stream`),
        { ...tool("units", `${base}/units`, { unitsPath: "usage.units" }), unit: "unit", maxUnitsPerCall: 10 },
      ],
    }),
  );
  t = await createTestApp({ TOOLS_CATALOG: catalog, METRICS_TOKEN: TEST_METRICS_TOKEN, GATEWAY_ABANDONED_AFTER_SECONDS: "5" });
  const user = await createUserWithSession(t, { balance: "10" });
  userId = user.userId;
  const key = await t.app.inject({ method: "POST", url: "/api/v1/console/keys", headers: user.headers, payload: { name: "metrics" } });
  secret = key.json<{ secret: string }>().secret;
});
afterAll(async () => {
  for (const res of held) res.destroy();
  await t.close();
  upstream.closeAllConnections();
  upstream.close();
});

const call = (toolId: string, query = "") => t.app.inject({ method: "POST", url: `/v1/tools/${toolId}${query}`, headers: { authorization: `Bearer ${secret}` }, payload: "{}" });
const fault = (tool: string, kind: string) => `tollgate_gateway_upstream_errors_total{tool="${tool}",kind="${kind}"}`;
const refunds = (reason: string) => [`tollgate_refunds_total{reason="${reason}"}`, `tollgate_refund_micros_total{reason="${reason}"}`];

describe("upstream errors", () => {
  it("are counted by tool and kind: a 5xx answer (status), a connection broken (reset), no answer in time (timeout), nothing listening (connect)", async () => {
    for (const [tool, kind, status] of [
      ["fail", "status", 502],
      ["reset", "reset", 502],
      ["slow", "timeout", 504],
      ["closed", "connect", 502],
    ] as const) {
      const kinds = ["status", "reset", "timeout", "connect", "other"].map((k) => fault(tool, k));
      const growth = await metricsGrowth(t.app, kinds, async () => expect((await call(tool)).statusCode, tool).toBe(status));
      expect(growth, tool).toEqual(Object.fromEntries(kinds.map((sample) => [sample, sample === fault(tool, kind) ? 1 : 0])));
    }
  });
});

describe("refunds", () => {
  it("are counted by reason with their money: a failed call's hold (failed), what a call did not use (unused), a stopped server's call (abandoned)", async () => {
    expect(await metricsGrowth(t.app, refunds("failed"), () => call("fail"))).toEqual(Object.fromEntries(refunds("failed").map((s, i) => [s, [1, 10_000][i]])));
    // Holds 10 units, uses 4: 6 × 0.01 back.
    expect(await metricsGrowth(t.app, refunds("unused"), () => call("units", "?use=4"))).toEqual(Object.fromEntries(refunds("unused").map((s, i) => [s, [1, 60_000][i]])));

    // A call held by a process that stopped: the sweep gives it back once it is older than GATEWAY_ABANDONED_AFTER_SECONDS.
    const [key] = await t.database.db.select().from(apiKeys).where(eq(apiKeys.userId, userId));
    const at = new Date(t.clock.now().getTime() - 60_000);
    await chargeBatch(t.database.db, [{ userId, apiKeyId: key!.id, toolId: "fail", units: 1, amount: 10_000n, requestId: "stopped-server-call", at }]);
    const before = await metricSamples(t.app);
    await expect
      .poll(async () => (await metricSamples(t.app)).get(refunds("abandoned")[0]!)! - (before.get(refunds("abandoned")[0]!) ?? 0), { timeout: 20_000, interval: 250 })
      .toBe(1);
    const after = await metricSamples(t.app);
    expect(after.get(refunds("abandoned")[1]!)! - before.get(refunds("abandoned")[1]!)!).toBe(10_000);
  });
});

describe("streams and holds", () => {
  it("count a stream's bytes by tool", async () => {
    const bytes = ['tollgate_gateway_streamed_bytes_total{tool="stream"}'];
    expect(await metricsGrowth(t.app, bytes, async () => expect((await call("stream")).body).toBe(STREAMED))).toEqual({ [bytes[0]!]: Buffer.byteLength(STREAMED) });
  });

  it("show a call holding its charge while the upstream answers, and none once it is settled", async () => {
    const inFlight = async () => (await metricSamples(t.app)).get("tollgate_gateway_holds_in_flight");
    expect(await inFlight()).toBe(0);
    const answered = call("held");
    await expect.poll(() => held.length).toBe(1);
    // The upstream is called while the hold commits (decision 038): the gauge counts it once committed.
    await expect.poll(inFlight).toBe(1);
    held.shift()!.writeHead(200, { "content-type": "application/json" }).end("{}");
    expect((await answered).statusCode).toBe(200);
    await expect.poll(inFlight).toBe(0);
  });
});
