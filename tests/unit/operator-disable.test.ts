/**
 * Issue 39: an operator disables a user from a process of their own (`tollgate admin users
 * disable`, the compiled CLI) while the servers run, and every server at once refuses the user's
 * key with `403 account_disabled` and ends their sessions; enabling lets them call again; the
 * ledger is untouched; the audit log names each command. On PGlite by default (one server: the CLI
 * reaches it through DATA_DIR/admin.sock), on PostgreSQL when DATABASE_URL is set (two servers; the
 * CLI opens the database itself and the servers hear of the change through NOTIFY).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { systemClock } from "../../src/server/clock";
import { verifyLedger } from "../../src/server/modules/ledger/verify";
import { buildServerForTest, withServerDatabase, emptyPostgresDatabase, readyUrl, runNode, startServerProcess, type ServerProcess } from "../../src/server/testing/server-process";
import { createUserWithSession } from "../../src/server/testing/users";
import { formatMoney } from "../../src/shared/money";

let dist: { dir: string; remove(): void };
const started: ServerProcess[] = [];
let dir: string;
let postgres: { url: string; drop(): Promise<void> } | undefined;

beforeAll(async () => {
  dist = await buildServerForTest();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-disable-"));
  if (process.env.DATABASE_URL) postgres = await emptyPostgresDatabase();
}, 600_000);

afterAll(async () => {
  for (const server of started) if (server.child.exitCode === null) server.child.kill("SIGKILL");
  await postgres?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
  dist?.remove();
});

/** `tollgate admin …` as an operator runs it: the compiled CLI in a process of its own, its output read whole. */
const admin = (env: Record<string, string>, ...args: string[]) => runNode([path.join(dist.dir, "cli.js"), "admin", ...args], { ...process.env, ...env, LOG_LEVEL: "warn" });

it("disabling a user in another process refuses their key on every server with account_disabled and ends their sessions; enabling undoes it; the ledger is untouched", async () => {
  const catalog = path.join(dir, "tools.json");
  fs.writeFileSync(catalog, JSON.stringify({ tools: [{ id: "echo", name: "echo", description: "echo", category: "test", price: "0.01", rateLimitPerMinute: 1_000_000, handler: { type: "builtin", name: "echo" } }] }));
  const env = { DATA_DIR: path.join(dir, "data"), DATABASE_URL: postgres?.url ?? "", TOOLS_CATALOG: catalog };
  fs.mkdirSync(env.DATA_DIR, { mode: 0o700 });
  // Made before the servers start: the embedded database belongs to one process at a time.
  const user = await withServerDatabase(env, (database) => createUserWithSession({ database, clock: systemClock }, { balance: "1" }));
  const servers = Array.from({ length: postgres ? 2 : 1 }, () => startServerProcess(path.join(dist.dir, "server.js"), env));
  started.push(...servers);
  const urls = await Promise.all(servers.map(readyUrl));

  const created = await fetch(`${urls[0]}/api/v1/console/keys`, { method: "POST", headers: { ...user.headers, "content-type": "application/json" }, body: '{"name":"ops"}' });
  expect(created.status).toBe(201);
  const { secret } = (await created.json()) as { secret: string };
  // Each call served costs 0.01, a refused one nothing.
  let served = 0;
  const call = async (url: string) => {
    const res = await fetch(`${url}/v1/tools/echo`, { method: "POST", headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" }, body: "{}" });
    const body = (await res.json()) as { error?: { code: string } };
    if (res.status === 200) served++;
    return { status: res.status, code: body.error?.code ?? null };
  };
  const session = async (url: string) => (await fetch(`${url}/api/v1/tools/user-info`, { headers: user.headers })).status;
  // Each server has the key in its cache now.
  for (const url of urls) expect(await call(url)).toEqual({ status: 200, code: null });

  const disabled = await admin(env, "users", "disable", String(user.userId), "--reason", "chargeback on order 1234");
  expect(disabled).toMatchObject({ code: 0, out: `disabled user ${user.userId} (${user.phone}): sessions ended, keys refused from now on\n` });
  // Well inside the key cache's 30 s: the servers heard of the change. A call in the moment before a
  // server hears of it is still served, and charged.
  for (const url of urls) {
    await expect.poll(() => call(url), { timeout: 5000, interval: 50 }).toEqual({ status: 403, code: "account_disabled" });
    expect(await session(url)).toBe(401);
  }
  const twice = await admin(env, "users", "disable", String(user.userId), "--reason", "again");
  expect(twice.code).toBe(1);
  expect(twice.err).toMatch(/^user \d+ is disabled already \(since \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \+08:00\): nothing changed\n$/);
  const shown = JSON.parse((await admin(env, "users", "show", user.phone, "--json")).out) as { balance: string; disabledReason: string | null };
  // The calls served and nothing else: the refused ones moved no money.
  expect(served).toBeGreaterThanOrEqual(urls.length);
  expect(shown).toMatchObject({ balance: formatMoney(1_000_000n - 10_000n * BigInt(served)), disabledReason: "chargeback on order 1234" });

  expect(await admin(env, "users", "enable", String(user.userId))).toMatchObject({ code: 0 });
  for (const url of urls) await expect.poll(() => call(url), { timeout: 5000, interval: 50 }).toEqual({ status: 200, code: null });

  const audit = await admin(env, "audit", "--limit", "4", "--json");
  expect(audit.code).toBe(0);
  const records = JSON.parse(audit.out) as { command: string; exitCode: number; hostUser: string; host: string; at: string }[];
  expect(records.map((r) => [r.command, r.exitCode])).toEqual([
    ["users enable", 0],
    ["users show", 0],
    ["users disable", 1],
    ["users disable", 0],
  ]);
  expect(new Set(records.map((r) => `${r.hostUser}@${r.host}`))).toEqual(new Set([`${os.userInfo().username}@${os.hostname()}`]));

  for (const server of servers) server.child.kill("SIGTERM");
  for (const server of servers) expect(await server.exited).toEqual({ code: 0, signal: null });
  await withServerDatabase(env, async (database) => expect((await verifyLedger(database.db)).problems).toEqual([]));
}, 600_000);
