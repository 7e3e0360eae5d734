/**
 * Issue 34 §6: the compiled server killed with SIGKILL in the middle of a burst of calls with
 * Idempotency-Keys, then started again: every retry is answered once the dead process's lease is
 * gone (at once on PGlite, which one process owns; within a lease on PostgreSQL), not after the
 * 600 s abandoned-call window, and no call is charged twice. On PGlite by default, on the
 * PostgreSQL server when DATABASE_URL is set. Two processes behind nginx: tests/cluster/.
 */
import fs from "node:fs";
import path from "node:path";
import { eq } from "drizzle-orm";
import { expect, it } from "vitest";
import { systemClock } from "../../src/server/clock";
import { usageRecords, users } from "../../src/server/db/schema/index";
import { verifyLedger } from "../../src/server/modules/ledger/verify";
import { crashFixture } from "../../src/server/testing/crash-fixture";
import { readyUrl, withServerDatabase } from "../../src/server/testing/server-process";
import { createUserWithSession } from "../../src/server/testing/users";
import { formatMoney } from "../../src/shared/money";

const f = crashFixture('{"temperature":21}');

function writeCatalog(): string {
  const base = f.base;
  const tool = (id: string, handler: object) => ({ id, name: id, description: id, category: "test", price: "0.01", rateLimitPerMinute: 1_000_000, handler });
  const file = path.join(f.dir, "tools.json");
  fs.writeFileSync(file, JSON.stringify({ tools: [tool("echo", { type: "builtin", name: "echo" }), tool("held", { type: "http", url: `${base}/hold`, timeoutMs: 60_000, totalTimeoutMs: 60_000 })] }));
  return file;
}

interface Answer {
  status: number;
  replayed: boolean;
}

async function callTool(base: string, secret: string, toolId: string, idempotencyKey: string): Promise<Answer> {
  const res = await fetch(`${base}/v1/tools/${toolId}`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", "idempotency-key": idempotencyKey, connection: "close" },
    body: '{"city":"x"}',
  });
  await res.arrayBuffer();
  return { status: res.status, replayed: res.headers.get("idempotent-replayed") === "true" };
}

it("killed with SIGKILL mid-burst and restarted: every retry with its Idempotency-Key gets its 2xx once the dead process's lease is gone, and each call is charged once", async () => {
  const env = { DATA_DIR: path.join(f.dir, "data"), DATABASE_URL: f.postgres?.url ?? "", TOOLS_CATALOG: writeCatalog(), SHUTDOWN_TIMEOUT_SECONDS: "60" };
  fs.mkdirSync(env.DATA_DIR, { mode: 0o700 });
  // Made before the server starts: the embedded database belongs to one process at a time.
  const user = await withServerDatabase(env, (database) => createUserWithSession({ database, clock: systemClock }, { balance: "10" }));
  const start = () => f.start(env);


  const first = start();
  const firstUrl = await readyUrl(first);
  const created = await fetch(`${firstUrl}/api/v1/console/keys`, {
    method: "POST",
    headers: { ...user.headers, "content-type": "application/json" },
    body: JSON.stringify({ name: "crash" }),
  });
  expect(created.status).toBe(201);
  const { secret } = (await created.json()) as { secret: string };

  const burst = Array.from({ length: 30 }, (_, i) => ({ key: `crash-burst-${i}`, toolId: i % 3 === 0 ? "held" : "echo" }));
  f.holding = true;
  const firstAnswers = burst.map((one) => callTool(firstUrl, secret, one.toolId, one.key).catch((error: unknown) => error));
  // Killed while upstream calls are held (charged, pending) and built-in calls are on their way.
  await expect.poll(() => f.held.length, { timeout: 60_000 }).toBeGreaterThanOrEqual(5);
  first.child.kill("SIGKILL");
  expect((await first.exited).signal).toBe("SIGKILL");
  f.holding = false;
  for (const res of f.held.splice(0)) res.destroy();
  expect((await Promise.all(firstAnswers)).some((answer) => answer instanceof Error)).toBe(true);

  const second = start();
  const url = await readyUrl(second);
  // Retried until answered: the bound is generous, far below the 600 s abandoned-call window.
  const deadline = Date.now() + 120_000;
  const retried = await Promise.all(
    burst.map(async (one) => {
      let answer = await callTool(url, secret, one.toolId, one.key);
      while (answer.status === 409 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        answer = await callTool(url, secret, one.toolId, one.key);
      }
      return answer;
    }),
  );
  expect(retried.filter((answer) => answer.status !== 200)).toEqual([]);
  const replays = await Promise.all(burst.map((one) => callTool(url, secret, one.toolId, one.key)));
  expect(replays.filter((answer) => answer.status !== 200 || !answer.replayed)).toEqual([]);
  second.child.kill("SIGTERM");
  expect(await second.exited).toEqual({ code: 0, signal: null });

  await withServerDatabase(env, async (database) => {
    const usage = await database.db.select().from(usageRecords).where(eq(usageRecords.userId, user.userId));
    expect(usage.filter((u) => u.status === "succeeded")).toHaveLength(burst.length);
    expect(usage.filter((u) => u.status === "pending")).toEqual([]);
    expect(usage.filter((u) => u.status === "refunded").length).toBeGreaterThan(0);
    const [row] = await database.db.select({ balance: users.balance }).from(users).where(eq(users.id, user.userId));
    expect(formatMoney(row!.balance)).toBe(formatMoney(10_000_000n - 10_000n * BigInt(burst.length)));
    expect((await verifyLedger(database.db)).problems).toEqual([]);
  });
}, 900_000);
