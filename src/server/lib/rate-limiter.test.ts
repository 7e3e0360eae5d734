import { randomUUID } from "node:crypto";
import { PassThrough } from "node:stream";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestRedis, type TestRedis } from "../testing/redis-server";
import { createRateLimiter, type RateLimit } from "./rate-limiter";

function capturedLog() {
  const stream = new PassThrough();
  let text = "";
  stream.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
  return { log: pino({ level: "info" }, stream), text: () => text };
}

const limit = (key: string, whenRedisDown: RateLimit["whenRedisDown"] = "local"): RateLimit => ({ key, limit: 100, windowMs: 60_000, whenRedisDown });

async function admitted(hits: Promise<number>[]): Promise<number> {
  return (await Promise.all(hits)).filter((wait) => wait === 0).length;
}

describe("rate limiter on Redis", () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(async () => {
    await redis.stop();
  });

  it("two processes sharing Redis admit the limit between them, not each", async () => {
    const prefix = `t:${randomUUID()}:`;
    const a = await createRateLimiter({ redisUrl: redis.url, keyPrefix: prefix, log: capturedLog().log });
    const b = await createRateLimiter({ redisUrl: redis.url, keyPrefix: prefix, log: capturedLog().log });
    try {
      const hits = Array.from({ length: 150 }, () => [a.hit(limit("key-1"), Date.now()), b.hit(limit("key-1"), Date.now())]).flat();
      expect(await admitted(hits)).toBe(100);
      const refused = await a.hit(limit("key-1"), Date.now());
      expect(refused).toBeGreaterThan(59_000);
      expect(refused).toBeLessThanOrEqual(60_000);
      expect(await b.hit(limit("key-2"), Date.now())).toBe(0);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("with Redis unreachable, a `local` limit counts in the process and a `refuse` limit refuses; both are logged, and so is recovery", async () => {
    const prefix = `t:${randomUUID()}:`;
    const { log, text } = capturedLog();
    const limiter = await createRateLimiter({ redisUrl: redis.url, keyPrefix: prefix, log });
    try {
      expect(await limiter.hit(limit("open"), Date.now())).toBe(0);
      await redis.stop();
      const now = Date.now();
      expect(await admitted(Array.from({ length: 150 }, () => limiter.hit(limit("open"), now)))).toBe(100);
      const closed = await limiter.hit(limit("closed", "refuse"), now);
      expect(closed).toBeGreaterThan(0);
      expect(text()).toMatch(/Redis unreachable/);
      expect(text().match(/Redis unreachable/g)).toHaveLength(1);

      await redis.start();
      await expect.poll(() => limiter.hit(limit("closed", "refuse"), Date.now()), { timeout: 15_000, interval: 100 }).toBe(0);
      expect(text()).toMatch(/Redis reachable again/);
    } finally {
      await limiter.close();
    }
  });
});

describe("rate limiter without Redis", () => {
  it("keeps the same sliding rule in memory", async () => {
    const limiter = await createRateLimiter({ keyPrefix: "", log: capturedLog().log });
    expect(limiter.shared).toBe(false);
    const t0 = 1_800_000_000_000;
    expect(await admitted(Array.from({ length: 150 }, () => limiter.hit(limit("k"), t0 + 59_000)))).toBe(100);
    expect(await limiter.hit(limit("k"), t0 + 61_000)).toBe(58_000);
  });
});
