/**
 * A gateway call while Redis is unreachable (decision 016): the per-key calls limit fails open to
 * this process's own count (`whenRedisDown: "local"`), so calls are still answered and charged,
 * and the process still refuses calls past the tool's limit.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { formatMoney } from "#shared/money";
import { users } from "../../db/schema/index";
import { freePort } from "../../testing/free-port";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { createUserWithSession } from "../../testing/users";

let t: TestApp;

beforeAll(async () => {
  const catalog = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "gateway-redis-down-")), "tools.json");
  const tool = { id: "limited", name: "limited", description: "limited tool", category: "test", price: "0.01", rateLimitPerMinute: 3, handler: { type: "builtin", name: "echo" } };
  fs.writeFileSync(catalog, JSON.stringify({ tools: [tool] }));
  // Nothing listens on this port: Redis is unreachable from the start.
  t = await createTestApp({ TOOLS_CATALOG: catalog, REDIS_URL: `redis://127.0.0.1:${await freePort()}`, REDIS_KEY_PREFIX: "redis-down-test:" });
});
afterAll(async () => {
  await t.close();
});

const call = (secret: string) =>
  t.app.inject({ method: "POST", url: "/v1/tools/limited", payload: { hello: "world" }, headers: { authorization: `Bearer ${secret}` } });

async function balanceOf(userId: number): Promise<string> {
  const [row] = await t.database.db.select({ balance: users.balance }).from(users).where(eq(users.id, userId));
  return formatMoney(row!.balance);
}

it("answers and charges calls, and refuses those past the tool's limit with 429 rate_limited", async () => {
  const user = await createUserWithSession(t, { balance: "1" });
  const created = await t.app.inject({ method: "POST", url: "/api/v1/console/keys", headers: user.headers, payload: { name: "test" } });
  expect(created.statusCode).toBe(201);
  const secret = (created.json() as { secret: string }).secret;

  for (let i = 0; i < 3; i++) {
    const res = await call(secret);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ hello: "world" });
    expect(res.headers["x-tollgate-cost"]).toBe("0.01");
  }
  expect(await balanceOf(user.userId)).toBe("0.97");

  const refused = await call(secret);
  expect(refused.statusCode).toBe(429);
  expect(refused.json().error.code).toBe("rate_limited");
  expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
  expect(await balanceOf(user.userId)).toBe("0.97");
  // The operator is told the limits are no longer shared.
  expect(t.logs()).toMatch(/Redis unreachable at start-up: per-key limits count in this process only/);
});
