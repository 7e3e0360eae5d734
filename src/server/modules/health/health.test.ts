/**
 * GET /api/v1/health and /api/v1/ready under polling (issue 34 §5): however many anonymous
 * clients poll, the database gets one round trip a period from them, and each IP has an allowance.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Database } from "../../db/client";
import { createTestDatabase } from "../../testing/test-database";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { CHECK_RESULT_TTL_MS, HEALTH_POLLS_PER_IP_PER_MINUTE } from "./routes";

let database: Database;
let t: TestApp;
/** Statements the app sent through `db.execute`, the way the database checks reach the database. */
let executed = 0;
let closed = false;

beforeAll(async () => {
  database = await createTestDatabase();
  const db = new Proxy(database.db, {
    get(target, property, receiver) {
      if (property !== "execute") return Reflect.get(target, property, receiver) as unknown;
      return (...args: Parameters<typeof target.execute>) => {
        executed += 1;
        return target.execute(...args);
      };
    },
  });
  // No periodic job runs while the test does (the shortest, the alerts job, every hour here).
  t = await createTestApp({ ALERT_JOB_SECONDS: "3600" }, { database: { ...database, db } });
});
afterAll(async () => {
  await t.close();
  if (!closed) await database.close();
});

const poll = (url: string, ip: string) => t.app.inject({ method: "GET", url, remoteAddress: ip });

it("answers many polls of both routes with one database round trip a period, also when they arrive together", async () => {
  executed = 0;
  const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => poll(i % 2 ? "/api/v1/health" : "/api/v1/ready", `198.51.100.${i % 20}`)));
  expect(answers.map((a) => a.statusCode)).toEqual(Array.from({ length: 40 }, () => 200));
  expect(answers[0]!.json()).toEqual({ status: "ready", draining: false, checks: { database: true } });
  expect(answers[1]!.json()).toEqual({ status: "ok", database: { reachable: true, kind: database.kind } });
  expect(executed).toBe(1);

  for (let i = 0; i < 20; i++) await poll("/api/v1/health", "198.51.100.50");
  expect(executed).toBe(1);

  t.clock.advance(CHECK_RESULT_TTL_MS);
  for (let i = 0; i < 20; i++) await poll("/api/v1/ready", "198.51.100.51");
  expect(executed).toBe(2);
});

it("refuses an IP past its allowance with 429 and Retry-After, serves another IP meanwhile, and the first again once the minute has passed", async () => {
  const busy = "203.0.113.9";
  for (let i = 0; i < HEALTH_POLLS_PER_IP_PER_MINUTE; i++) {
    expect((await poll(i % 2 ? "/api/v1/health" : "/api/v1/ready", busy)).statusCode, `poll ${i}`).not.toBe(429);
  }
  const refused = await poll("/api/v1/health", busy);
  expect(refused.statusCode).toBe(429);
  expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1);
  expect(refused.json()).toMatchObject({ code: "rate_limited", message: expect.stringContaining(`at most ${HEALTH_POLLS_PER_IP_PER_MINUTE} health and readiness checks a minute`) });
  expect((await poll("/api/v1/ready", busy)).statusCode).toBe(429);

  expect((await poll("/api/v1/health", "203.0.113.10")).statusCode).toBe(200);

  t.clock.advance(Number(refused.headers["retry-after"]) * 1000);
  expect((await poll("/api/v1/health", busy)).statusCode).toBe(200);
});

it("shows draining at once, with the database's last answer still standing", async () => {
  t.clock.advance(CHECK_RESULT_TTL_MS);
  expect((await poll("/api/v1/ready", "198.51.100.60")).statusCode).toBe(200);
  const before = executed;
  t.app.lifecycle.startDraining();
  expect((await poll("/api/v1/ready", "198.51.100.60")).json()).toEqual({ status: "not_ready", draining: true, checks: { database: true } });
  expect(executed).toBe(before);
});

it("sees a database that stopped answering once its last answer has expired", async () => {
  t.clock.advance(CHECK_RESULT_TTL_MS);
  expect((await poll("/api/v1/health", "198.51.100.70")).statusCode).toBe(200);
  await database.close();
  closed = true;
  expect((await poll("/api/v1/health", "198.51.100.70")).statusCode).toBe(200);
  t.clock.advance(CHECK_RESULT_TTL_MS);
  expect((await poll("/api/v1/health", "198.51.100.70")).json()).toEqual({ status: "degraded", database: { reachable: false, kind: database.kind } });
  expect((await poll("/api/v1/ready", "198.51.100.70")).json()).toMatchObject({ status: "not_ready", checks: { database: false } });
});
