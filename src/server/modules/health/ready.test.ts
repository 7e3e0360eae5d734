/**
 * GET /api/v1/ready (issue 14 §5): what a load balancer sees while the database or Redis is
 * unreachable and while the process drains; /api/v1/health, the liveness check, stays 200;
 * /metrics counts the Redis errors; and the log tells the operator why, once per change.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestRedis, type TestRedis } from "../../testing/redis-server";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { CHECK_RESULT_TTL_MS } from "./routes";

const METRICS_TOKEN = "metrics-token-0123456789";
let redis: TestRedis;
let t: TestApp;

beforeAll(async () => {
  redis = await startTestRedis();
  t = await createTestApp({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: "ready-test:", METRICS_TOKEN });
});
afterAll(async () => {
  await t.app.close();
  await redis.stop();
});

/** One poll a period, as a load balancer makes them: each sees a fresh check. */
const ready = async () => {
  t.clock.advance(CHECK_RESULT_TTL_MS);
  const response = await t.app.inject({ method: "GET", url: "/api/v1/ready" });
  return { status: response.statusCode, body: response.json() as unknown };
};
const redisConnectionErrors = async () => {
  const text = (await t.app.inject({ method: "GET", url: "/metrics", headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).body;
  return Number(/tollgate_redis_errors_total\{operation="connection"\} (\d+)/.exec(text)?.[1] ?? 0);
};
/** The log lines about readiness checks, as { level, msg, check, err }. */
const readinessLines = () =>
  t
    .logs()
    .split("\n")
    .filter((line) => line.includes('"readiness: '))
    .map((line) => JSON.parse(line) as { level: number; msg: string; check: string; err?: { message: string } });
const WARN = 40;
const INFO = 30;
const health = async () => {
  t.clock.advance(CHECK_RESULT_TTL_MS);
  return (await t.app.inject({ method: "GET", url: "/api/v1/health" })).statusCode;
};

it("is ready with the database and Redis reachable", async () => {
  expect(await ready()).toEqual({ status: 200, body: { status: "ready", draining: false, checks: { database: true, redis: true } } });
});

it("is not ready while Redis is unreachable, counts its errors, and is ready again once it is back", async () => {
  expect(await redisConnectionErrors()).toBe(0);
  await redis.stop();
  expect(await ready()).toEqual({ status: 503, body: { status: "not_ready", draining: false, checks: { database: true, redis: false } } });
  expect(await ready()).toMatchObject({ status: 503 });
  expect(await health()).toBe(200);
  // Once for the two polls, with Redis's own words.
  expect(readinessLines()).toEqual([
    expect.objectContaining({ level: WARN, msg: "readiness: redis does not answer", check: "redis", err: expect.objectContaining({ message: expect.any(String) }) }),
  ]);
  await expect.poll(redisConnectionErrors).toBeGreaterThan(0);
  await redis.start();
  // ioredis reconnects with back-off; the check follows it.
  let answer = await ready();
  while (answer.status !== 200) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    answer = await ready();
  }
  expect(answer.body).toEqual({ status: "ready", draining: false, checks: { database: true, redis: true } });
  expect(readinessLines().slice(1)).toEqual([expect.objectContaining({ level: INFO, msg: "readiness: redis answers again", check: "redis" })]);
});

it("is not ready while draining", async () => {
  t.app.lifecycle.startDraining();
  expect(await ready()).toEqual({ status: 503, body: { status: "not_ready", draining: true, checks: { database: true, redis: true } } });
  expect(await health()).toBe(200);
});

it("is not ready once the database is unreachable", async () => {
  await t.database.close();
  const answer = await ready();
  expect(answer.status).toBe(503);
  expect(answer.body).toMatchObject({ status: "not_ready", checks: { database: false } });
  expect((await ready()).status).toBe(503);
  expect(readinessLines().filter((line) => line.check === "database")).toEqual([
    expect.objectContaining({ level: WARN, msg: "readiness: database does not answer", err: expect.objectContaining({ message: expect.any(String) }) }),
  ]);
});
