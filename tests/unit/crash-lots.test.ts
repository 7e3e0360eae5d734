/**
 * Issue 37 §4: the compiled server killed with SIGKILL while calls of tools with packages hold
 * units drawn from lots, then started again: nothing is lost and no lot is over-drawn. The calls
 * the dead process held come back through the abandoned-call sweep, their units to the lots they
 * were drawn from; every lot's units left and moves agree with what the calls that succeeded used,
 * and `verifyLedger` (what `admin ledger verify` runs) finds nothing. On PGlite by default, on the
 * PostgreSQL server when DATABASE_URL is set.
 */
import fs from "node:fs";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { systemClock } from "../../src/server/clock";
import { queryRows } from "../../src/server/db/client";
import { unitLots, usageRecords } from "../../src/server/db/schema/index";
import { grantPackage } from "../../src/server/modules/ledger/index";
import { verifyLedger } from "../../src/server/modules/ledger/verify";
import { crashFixture } from "../../src/server/testing/crash-fixture";
import { readyUrl, withServerDatabase } from "../../src/server/testing/server-process";
import { createUserWithSession } from "../../src/server/testing/users";

const f = crashFixture('{"usage":{"units":2}}');

const PACKAGE = { id: "pack", name: "Pack", units: 1000, price: "1.00", validDays: 30 };

function writeCatalog(): string {
  const base = f.base;
  const tool = (id: string, extra: object) => ({ id, name: id, description: id, category: "test", price: "0.01", rateLimitPerMinute: 1_000_000, packages: [PACKAGE], ...extra });
  const file = path.join(f.dir, "tools.json");
  fs.writeFileSync(
    file,
    JSON.stringify({
      tools: [
        tool("echo", { handler: { type: "builtin", name: "echo" } }),
        // Holds 3 units a call, uses what the answer reports; within the 5 s abandoned-call window.
        tool("held", { unit: "unit", maxUnitsPerCall: 3, handler: { type: "http", url: `${base}/hold`, unitsPath: "usage.units", timeoutMs: 4000, totalTimeoutMs: 4000 } }),
      ],
    }),
  );
  return file;
}

const call = (base: string, secret: string, toolId: string) =>
  fetch(`${base}/v1/tools/${toolId}`, { method: "POST", headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", connection: "close" }, body: "{}" }).then(
    async (res) => (await res.arrayBuffer(), res.status),
  );

it("killed with SIGKILL while calls hold units from lots and restarted: the sweep gives the held units back to their lots, none is over-drawn, the ledger verifies", async () => {
  const env = { DATA_DIR: path.join(f.dir, "data"), DATABASE_URL: f.postgres?.url ?? "", TOOLS_CATALOG: writeCatalog(), GATEWAY_ABANDONED_AFTER_SECONDS: "5" };
  fs.mkdirSync(env.DATA_DIR, { mode: 0o700 });
  // Made before the server starts: the embedded database belongs to one process at a time. Each
  // tool's lot is smaller than the burst's draws, so some calls split between the lot and the balance.
  const user = await withServerDatabase(env, async (database) => {
    const made = await createUserWithSession({ database, clock: systemClock }, { balance: "10" });
    for (const [toolId, units] of [["echo", 12], ["held", 40]] as const) {
      const terms = { toolId, packageId: PACKAGE.id, name: PACKAGE.name, units, price: 0n, validDays: PACKAGE.validDays };
      await grantPackage(database.db, { userId: made.userId, terms, count: 1, at: new Date(), idempotencyKey: `crash-${toolId}` });
    }
    return made;
  });
  const start = () => f.start(env);


  const first = start();
  const firstUrl = await readyUrl(first);
  const created = await fetch(`${firstUrl}/api/v1/console/keys`, { method: "POST", headers: { ...user.headers, "content-type": "application/json" }, body: JSON.stringify({ name: "crash" }) });
  expect(created.status).toBe(201);
  const { secret } = (await created.json()) as { secret: string };

  f.holding = true;
  const burst = Array.from({ length: 40 }, (_, i) => call(firstUrl, secret, i % 2 === 0 ? "held" : "echo").catch((error: unknown) => error));
  // Killed while held calls hold 3 units each (from the lot, then the balance) and echo calls draw.
  await expect.poll(() => f.held.length, { timeout: 60_000 }).toBeGreaterThanOrEqual(10);
  first.child.kill("SIGKILL");
  expect((await first.exited).signal).toBe("SIGKILL");
  f.holding = false;
  for (const res of f.held.splice(0)) res.destroy();
  expect((await Promise.all(burst)).some((answer) => answer instanceof Error)).toBe(true);
  const second = start();
  const url = await readyUrl(second);
  // The sweep first runs 5 s after the server is ready: every call of the dead process is older than the window by then.
  await second.logLine((line) => line.msg === "refunded calls abandoned by a stopped server", 120_000);
  // The restarted server draws from the lots as before.
  expect(await call(url, secret, "held")).toBe(200);
  second.child.kill("SIGTERM");
  expect(await second.exited).toEqual({ code: 0, signal: null });

  await withServerDatabase(env, async (database) => {
    const usage = await database.db.select().from(usageRecords).where(eq(usageRecords.userId, user.userId));
    expect(usage.filter((u) => u.status === "pending")).toEqual([]);
    // The sweep refunded calls that had drawn from lots, and each gave back all it drew.
    const swept = await queryRows<{ calls: string; net: string }>(
      database.db,
      sql`select count(distinct m.usage_id)::text as calls, coalesce(sum(m.units), 0)::text as net
          from lot_ledger m join usage_records u on u.id = m.usage_id where u.user_id = ${user.userId} and u.status = 'refunded'`,
    );
    expect(Number(swept[0]!.calls)).toBeGreaterThan(0);
    expect(swept[0]!.net).toBe("0");
    const lots = await database.db.select().from(unitLots).where(eq(unitLots.userId, user.userId));
    // What each lot gave equals what the calls that were charged kept of it: nothing held is lost.
    const kept = await queryRows<{ tool_id: string; units: string }>(
      database.db,
      sql`select tool_id, coalesce(sum(prepaid_units), 0)::text as units from usage_records
          where user_id = ${user.userId} and status <> 'refunded' group by tool_id`,
    );
    const keptOf = (toolId: string) => Number(kept.find((row) => row.tool_id === toolId)?.units ?? 0);
    expect(lots.map((lot) => [lot.toolId, lot.unitsGranted - lot.unitsLeft])).toEqual(lots.map((lot) => [lot.toolId, keptOf(lot.toolId)]));
    expect(lots.every((lot) => lot.unitsLeft >= 0 && lot.unitsLeft < lot.unitsGranted)).toBe(true);
    expect((await verifyLedger(database.db)).problems).toEqual([]);
  });
}, 900_000);
