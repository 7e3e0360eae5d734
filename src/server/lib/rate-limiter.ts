import { randomUUID } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import type { Redis } from "ioredis";
import { AppError } from "../errors";
import { HOUR_MS } from "./database-limits";
import { SlidingWindowLimiter } from "./sliding-window";
import { waitText } from "./wait-text";

export interface RateLimit {
  /** What is counted, e.g. `calls:<key id>:<tool id>`. */
  key: string;
  limit: number;
  windowMs: number;
  /**
   * With Redis unreachable: `local` counts in this process's memory (each process then admits up
   * to the limit: fail open, bounded), `refuse` refuses every hit (fail closed).
   */
  whenRedisDown: "local" | "refuse";
}

export interface RateLimiter {
  readonly shared: boolean;
  /** Counts a hit; resolves to 0 when admitted, or the milliseconds until one would be. */
  hit(limit: RateLimit, nowMs: number): Promise<number>;
  /** With Redis: whether it answers now (for the readiness check). */
  readonly reachable?: () => Promise<boolean>;
  close(): Promise<void>;
}

/** What a refused hit waits while Redis is unreachable and its limit fails closed. */
const REDIS_DOWN_RETRY_MS = 1000;
/** How long start-up waits for Redis before serving with it marked down. */
const CONNECT_WAIT_MS = 3000;

/**
 * The sliding log in Redis, atomic in one script: a sorted set of the admitted hits' times
 * (Redis's own clock, so processes' clocks do not matter), trimmed to the window.
 */
const SLIDING_WINDOW_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if count < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  return 0
end
local edge = redis.call('ZRANGE', KEYS[1], count - limit, count - limit, 'WITHSCORES')
return math.max(1, tonumber(edge[2]) + window - now)
`;

type SlidingRedis = Redis & { slidingWindow(key: string, windowMs: number, limit: number, member: string): Promise<number> };

/**
 * One limiter for every rate limit the database does not keep: in Redis when `redisUrl` is set,
 * so all processes share each limit, otherwise in this process's memory (docs/decisions/016).
 */
export async function createRateLimiter(options: {
  redisUrl?: string;
  keyPrefix: string;
  log: FastifyBaseLogger;
  /** Called on each error talking to Redis: `connection`, or `hit` for a failed count. */
  onRedisError?: (operation: "connection" | "hit") => void;
}): Promise<RateLimiter> {
  const local = new Map<number, SlidingWindowLimiter>();
  const hitLocally = (limit: RateLimit, nowMs: number) => {
    let windowed = local.get(limit.windowMs);
    if (!windowed) {
      windowed = new SlidingWindowLimiter(limit.windowMs);
      local.set(limit.windowMs, windowed);
    }
    return windowed.hit(limit.key, limit.limit, nowMs);
  };
  if (!options.redisUrl) {
    return { shared: false, hit: async (limit, nowMs) => hitLocally(limit, nowMs), close: async () => {} };
  }

  const { log, keyPrefix } = options;
  // Loaded only with REDIS_URL: a process without Redis does not carry the client's memory.
  const { Redis } = await import("ioredis");
  const redis = new Redis(options.redisUrl, {
    keyPrefix,
    // A hit must not wait for Redis to come back: it fails at once and its limit's fallback applies.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 500,
    retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, 2000),
  }) as SlidingRedis;
  redis.defineCommand("slidingWindow", { numberOfKeys: 1, lua: SLIDING_WINDOW_LUA });
  redis.on("error", (error: Error) => {
    options.onRedisError?.("connection");
    log.debug({ err: error }, "redis connection error");
  });
  const member = `${randomUUID()}:`;
  let sequence = 0;
  let down = false;
  const connected = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), CONNECT_WAIT_MS);
    redis.once("ready", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  if (!connected) {
    down = true;
    log.error("Redis unreachable at start-up: per-key limits count in this process only, limits that fail closed refuse calls");
  }

  return {
    shared: true,
    async hit(limit, nowMs) {
      try {
        const waitMs = Number(await redis.slidingWindow(limit.key, limit.windowMs, limit.limit, member + (sequence += 1)));
        if (down) {
          down = false;
          log.info("Redis reachable again: rate limits are shared again");
        }
        return waitMs;
      } catch (error) {
        options.onRedisError?.("hit");
        if (!down) {
          down = true;
          log.error({ err: error }, "Redis unreachable: per-key limits count in this process only, limits that fail closed refuse calls");
        }
        return limit.whenRedisDown === "local" ? hitLocally(limit, nowMs) : REDIS_DOWN_RETRY_MS;
      }
    },
    // A failed ping rejects with its cause, which the readiness check logs.
    reachable: () => redis.ping().then((reply) => reply === "PONG"),
    async close() {
      redis.disconnect();
    },
  };
}

const PERIOD_MS = { minute: 60_000, hour: HOUR_MS } as const;

/**
 * Counts one of `limit` requests of one kind (`what`, e.g. "test events") a minute or an hour under
 * `key`, or refuses it with 429 and when to retry. Fails open to this process's count when Redis is down.
 */
export async function takeAllowance(
  limiter: RateLimiter,
  input: { key: string; limit: number; per: keyof typeof PERIOD_MS; what: string; nowMs: number },
): Promise<void> {
  const waitMs = await limiter.hit({ key: input.key, limit: input.limit, windowMs: PERIOD_MS[input.per], whenRedisDown: "local" }, input.nowMs);
  if (waitMs > 0) throw AppError.tooManyRequests(`at most ${input.limit} ${input.what} a${input.per === "hour" ? "n" : ""} ${input.per}; try again in ${waitText(waitMs)}`, waitMs / 1000);
}

/** Counts one of `perHour` console actions of one kind under `key` (takeAllowance by the hour). */
export async function takeHourlyAllowance(limiter: RateLimiter, input: { key: string; perHour: number; what: string; nowMs: number }): Promise<void> {
  await takeAllowance(limiter, { key: input.key, limit: input.perHour, per: "hour", what: input.what, nowMs: input.nowMs });
}
