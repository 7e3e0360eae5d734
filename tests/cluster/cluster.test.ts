/**
 * Tollgate as an operator runs it at scale: nginx in front of two server processes on PostgreSQL
 * and Redis, all started here on free ports of 127.0.0.1 (issue #14). On PostgreSQL only: without
 * DATABASE_URL these tests use the PostgreSQL server at postgres://postgres@127.0.0.1:5432, in a
 * database of their own; if it cannot be reached they fail, they never skip.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { and, eq, inArray, isNull } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatMoney } from "../../src/shared/money";
import { systemClock } from "../../src/server/clock";
import { LISTENER_APPLICATION_NAME, openPostgres, type Database } from "../../src/server/db/client";
import { idempotencyKeys, usageRecords, users } from "../../src/server/db/schema/index";
import { verifyLedger } from "../../src/server/modules/ledger/verify";
import { freePort } from "../../src/server/testing/free-port";
import { buildServerForTest } from "../../src/server/testing/server-process";
import { startTestRedis, type TestRedis } from "../../src/server/testing/redis-server";
import { TEST_SECRET } from "../../src/server/testing/test-app";
import { createUserWithSession, type TestUser } from "../../src/server/testing/users";
import { startNginx, startServer, type Nginx, type ServerProcess } from "./processes";

const SERVER_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

let dir: string;
let dbName: string;
let dbUrl: string;
let database: Database;
let redis: TestRedis;
let upstream: http.Server;
/** Requests the `held` tool's upstream is holding (while `holding`); the test ends them. */
const held: http.ServerResponse[] = [];
let holding = false;
let nginx: Nginx;
const servers: ServerProcess[] = [];
let env: Record<string, string>;
/** The compiled server, built for this file the way `npm run build` builds dist/. */
let dist: { dir: string; remove(): void };
let serverJs: string;

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

async function adminQuery(query: string, values: unknown[] = []) {
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  try {
    return await admin.query(query, values);
  } finally {
    await admin.end();
  }
}

function writeCatalog(base: string): string {
  const tool = (id: string, handler: object, extra: object = {}) => ({ id, name: id, description: id, category: "test", price: "0.01", rateLimitPerMinute: 1_000_000, handler, ...extra });
  const file = path.join(dir, "tools.json");
  fs.writeFileSync(
    file,
    JSON.stringify({
      tools: [
        tool("echo", { type: "builtin", name: "echo" }),
        tool("limited", { type: "builtin", name: "echo" }, { rateLimitPerMinute: 100 }),
        tool("weather", { type: "http", url: `${base}/ok`, timeoutMs: 5000, totalTimeoutMs: 5000 }),
        tool("held", { type: "http", url: `${base}/hold`, timeoutMs: 5000, totalTimeoutMs: 5000 }),
      ],
    }),
  );
  return file;
}

beforeAll(async () => {
  dist = await buildServerForTest();
  serverJs = path.join(dist.dir, "server.js");
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-cluster-"));
  dbName = `tollgate_t_${process.ppid}_${randomBytes(6).toString("hex")}`;
  await adminQuery(`create database "${dbName}"`);
  dbUrl = withDatabase(SERVER_URL, dbName);
  redis = await startTestRedis();
  upstream = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (req.url?.startsWith("/hold") && holding) return void held.push(res);
      // Slow enough that calls are in flight when a server is stopped.
      setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end('{"temperature":21}'), 100);
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  env = {
    NODE_ENV: "production",
    SESSION_SECRET: TEST_SECRET,
    LOG_LEVEL: "info",
    DATA_DIR: path.join(dir, "data"),
    WEB_ROOT: path.join(dir, "no-web-build"),
    DATABASE_URL: dbUrl,
    REDIS_URL: redis.url,
    REDIS_KEY_PREFIX: `cluster-test:${randomBytes(6).toString("hex")}:`,
    TOOLS_CATALOG: writeCatalog(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`),
    TRUST_PROXY: "true",
  };
  const ports = [await freePort(), await freePort()];
  // Both at once: their migrations must serialise on the advisory lock.
  servers.push(...(await Promise.all(ports.map((port) => startServer(serverJs, port, env)))));
  nginx = await startNginx(path.join(dir, "nginx"), await freePort(), ports);
  database = openPostgres(dbUrl, 4);
}, 180_000);

afterAll(async () => {
  await nginx?.stop();
  await Promise.all(servers.map((server) => server.stop("SIGKILL")));
  for (const res of held) res.destroy();
  upstream?.closeAllConnections();
  upstream?.close();
  await redis?.stop();
  await database?.close();
  await adminQuery(`drop database if exists "${dbName}" with (force)`).catch(() => {});
  fs.rmSync(dir, { recursive: true, force: true });
  dist?.remove();
}, 60_000);

interface Answer {
  status: number;
  requestId: string | null;
  replayed: boolean;
}

/**
 * One call on a connection of its own (as nginx's reload closes its old workers' idle client
 * connections, and a POST sent on one just then could not be known unanswered).
 */
async function callTool(base: string, secret: string, toolId: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = '{"city":"x"}';
    const req = http.request(
      `${base}/v1/tools/${toolId}`,
      { method: "POST", agent: false, headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", "content-length": body.length, ...headers } },
      (res) => {
        res.resume();
        res.on("error", reject);
        res.on("end", () =>
          resolve({
            status: res.statusCode!,
            requestId: (res.headers["x-request-id"] as string | undefined) ?? null,
            replayed: res.headers["idempotent-replayed"] === "true",
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** Runs `count` calls, `concurrency` at a time. */
async function callMany(count: number, concurrency: number, one: (i: number) => Promise<Answer>): Promise<Answer[]> {
  const answers: Answer[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) answers.push(await one(next++));
    }),
  );
  return answers;
}

async function funded(balance: string): Promise<{ user: TestUser; key: { id: number; secret: string } }> {
  const user = await createUserWithSession({ database, clock: systemClock }, { balance });
  const key = await newKey(user);
  return { user, key };
}

async function newKey(user: TestUser): Promise<{ id: number; secret: string }> {
  const res = await fetch(`${nginx.url}/api/v1/console/keys`, {
    method: "POST",
    headers: { ...user.headers, "content-type": "application/json" },
    body: JSON.stringify({ name: "cluster" }),
  });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { key: { id: number }; secret: string };
  return { id: body.key.id, secret: body.secret };
}

async function setEnabled(server: ServerProcess, user: TestUser, keyId: number, enabled: boolean) {
  const res = await fetch(`${server.url}/api/v1/console/keys/${keyId}`, {
    method: "PATCH",
    headers: { ...user.headers, "content-type": "application/json" },
    body: JSON.stringify({ enabled }),
  });
  expect(res.status).toBe(200);
}

async function balanceOf(userId: number): Promise<string> {
  const [row] = await database.db.select({ balance: users.balance }).from(users).where(eq(users.id, userId));
  return formatMoney(row!.balance);
}

async function expectLedgerVerifies() {
  expect((await verifyLedger(database.db)).problems).toEqual([]);
}

/** Restarts each server in turn while `answers` keeps growing with calls through nginx. */
async function rollingRestart(answers: Answer[], secret: string) {
  for (let i = 0; i < servers.length; i += 1) {
    const before = answers.length;
    await expect.poll(() => answers.length, { timeout: 30_000 }).toBeGreaterThan(before + 20);
    const old = servers[i]!;
    // Out of rotation, then stopped with calls in flight: they must still be answered and charged.
    await (await nginx.setDown([old.port])).drained;
    holding = true;
    const inFlight = Array.from({ length: 3 }, () => callTool(old.url, secret, "held"));
    await expect.poll(() => held.length, { timeout: 30_000 }).toBe(3);
    const stopped = old.stop("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 300));
    holding = false;
    for (const res of held.splice(0)) res.writeHead(200, { "content-type": "application/json" }).end('{"late":true}');
    expect(await stopped).toBe(0);
    answers.push(...(await Promise.all(inFlight)));
    servers[i] = await startServer(serverJs, old.port, env);
    await (await nginx.setDown([])).drained;
    }
}

const count = (answers: Answer[], status: number) => answers.filter((a) => a.status === status).length;

describe("two processes behind nginx on PostgreSQL and Redis", () => {
  it("keep money exact under load: a balance for 150 calls pays for exactly 150, and the ledger verifies", async () => {
    const { user, key } = await funded("1.5");
    const answers = await callMany(250, 25, (i) => callTool(nginx.url, key.secret, i % 2 ? "echo" : "weather"));
    expect(answers.filter((a) => a.status >= 500)).toEqual([]);
    expect(count(answers, 200)).toBe(150);
    expect(count(answers, 402)).toBe(100);
    expect(await balanceOf(user.userId)).toBe("0.00");
    await expectLedgerVerifies();
  }, 120_000);

  it("admit a key limited to 100 calls a minute at most 100 times between them", async () => {
    const { user, key } = await funded("10");
    // Straight to each process in turn, so both surely take their share.
    const answers = await callMany(250, 25, (i) => callTool(servers[i % 2]!.url, key.secret, "limited"));
    expect(count(answers, 200)).toBe(100);
    expect(count(answers, 429)).toBe(150);
    expect(await balanceOf(user.userId)).toBe("9.00");
  }, 120_000);

  it("refuse a key disabled through one process on the other at once, and within 2 s after the listener's connection was killed", async () => {
    const [a, b] = servers as [ServerProcess, ServerProcess];
    const { user, key } = await funded("1");
    // B has the key cached: only the change's notification can tell it.
    expect((await callTool(b.url, key.secret, "echo")).status).toBe(200);
    await setEnabled(a, user, key.id, false);
    await expect.poll(async () => (await callTool(b.url, key.secret, "echo")).status, { timeout: 2000, interval: 20 }).toBe(401);

    const second = await newKey(user);
    expect((await callTool(b.url, second.secret, "echo")).status).toBe(200);
    const killed = await adminQuery("select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and application_name = $2", [
      dbName,
      LISTENER_APPLICATION_NAME,
    ]);
    expect(killed.rowCount).toBe(2);
    await setEnabled(a, user, second.id, false);
    await expect.poll(async () => (await callTool(b.url, second.secret, "echo")).status, { timeout: 2000, interval: 20 }).toBe(401);

    // Loss and recovery are logged; once back, B hears changes again.
    await expect.poll(() => b.output(), { timeout: 15_000 }).toMatch(/key-change listener back/);
    expect(b.output()).toMatch(/lost the key-change listener/);
    const third = await newKey(user);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await callTool(b.url, third.secret, "echo")).status).toBe(200);
    await setEnabled(a, user, third.id, false);
    await expect.poll(async () => (await callTool(b.url, third.secret, "echo")).status, { timeout: 2000, interval: 20 }).toBe(401);
  }, 120_000);

  it("restart one after the other with SIGTERM under load (each out of nginx's rotation meanwhile): no 5xx, every answered call charged once, nothing charged unanswered", async () => {
    const { user, key } = await funded("1000");
    const answers: Answer[] = [];
    let loading = true;
    const load = Promise.all(
      Array.from({ length: 8 }, async (_, worker) => {
        for (let i = 0; loading; i += 1) answers.push(await callTool(nginx.url, key.secret, (worker + i) % 2 ? "echo" : "weather"));
      }),
    );
    try {
      await rollingRestart(answers, key.secret);
    } finally {
      loading = false;
      await load;
    }
    // A few calls after the restarts, on both new processes.
    answers.push(...(await callMany(20, 4, (i) => callTool(nginx.url, key.secret, i % 2 ? "echo" : "weather"))));

    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    const answered = new Set(answers.map((a) => a.requestId));
    const usage = await database.db.select().from(usageRecords).where(eq(usageRecords.userId, user.userId));
    expect(usage.every((u) => u.status === "succeeded" && u.amount === 10_000n)).toBe(true);
    expect(new Set(usage.map((u) => u.requestId))).toEqual(answered);
    expect(usage).toHaveLength(answers.length);
    expect(await balanceOf(user.userId)).toBe(formatMoney(100_000_000n * 10n - 10_000n * BigInt(answers.length)));
    await expectLedgerVerifies();
  }, 240_000);

  it("after kill -9 of one mid-burst and its restart, every retry with the same Idempotency-Key gets its 2xx once the dead process's lease runs out (not the 600 s window), and no call is charged twice", async () => {
    const b = servers[1]!;
    const { user, key } = await funded("10");
    const burst = Array.from({ length: 60 }, (_, i) => ({ idempotencyKey: `killed-burst-${i}`, toolId: i % 3 === 0 ? "held" : "echo" }));
    const send = (one: (typeof burst)[number]) => callTool(nginx.url, key.secret, one.toolId, { "idempotency-key": one.idempotencyKey });
    holding = true;
    // Through nginx to both processes at once; killed once every held call is at the upstream
    // (charged, pending) and both processes hold some, so the dead one leaves charges to refund.
    const first = burst.map((one) => send(one).catch((error: unknown) => error));
    const heldCalls = burst.filter((one) => one.toolId === "held");
    await expect.poll(() => held.length, { timeout: 30_000 }).toBe(heldCalls.length);
    const holders = await database.db
      .selectDistinct({ instanceId: idempotencyKeys.instanceId })
      .from(idempotencyKeys)
      .where(and(inArray(idempotencyKeys.key, heldCalls.map((one) => one.idempotencyKey)), isNull(idempotencyKeys.statusCode)));
    expect(holders, "nginx sent held calls to both processes").toHaveLength(2);
    expect(await b.stop("SIGKILL")).toBe("SIGKILL");
    holding = false;
    // The survivor's held calls are answered; the dead one's connections are gone.
    for (const res of held.splice(0)) res.writeHead(200, { "content-type": "application/json" }).end('{"late":true}');
    const firstAnswers = await Promise.all(first);
    expect(firstAnswers.some((answer) => answer instanceof Error || (answer as Answer).status === 502)).toBe(true);
    servers[1] = await startServer(serverJs, b.port, env);

    // Every call retried with its key until it is answered: a claim of the dead process is
    // in progress only until its lease runs out (seconds); the bound is generous, not a measure.
    const deadline = Date.now() + 120_000;
    const retried = await Promise.all(
      burst.map(async (one) => {
        let answer = await send(one);
        while (answer.status === 409 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 250));
          answer = await send(one);
        }
        return answer;
      }),
    );
    expect(retried.filter((answer) => answer.status !== 200)).toEqual([]);
    // Now every key has its one answer kept, and replays it.
    const replays = await Promise.all(burst.map(send));
    expect(replays.filter((answer) => answer.status !== 200 || !answer.replayed)).toEqual([]);

    // One charge per key: the dead process's calls were refunded, each once.
    const usage = await database.db.select().from(usageRecords).where(eq(usageRecords.userId, user.userId));
    expect(usage.filter((u) => u.status === "succeeded")).toHaveLength(burst.length);
    expect(usage.filter((u) => u.status === "pending")).toEqual([]);
    expect(usage.filter((u) => u.status === "refunded").length).toBeGreaterThan(0);
    expect(await balanceOf(user.userId)).toBe(formatMoney(10_000_000n - 10_000n * BigInt(burst.length)));
    await expectLedgerVerifies();
  }, 300_000);
});
