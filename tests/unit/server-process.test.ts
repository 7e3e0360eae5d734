/**
 * The compiled server (issue 14 §1, §2, §5): on Node 24, alone on PGlite, as WEB_CONCURRENCY
 * workers on PostgreSQL, migrating once, answering one metrics scrape for all workers, and
 * draining on SIGTERM with a call in flight.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../src/server/clock";
import { openPostgres } from "../../src/server/db/client";
import { buildServerForTest, emptyPostgresDatabase, PROJECT_NODE, readyUrl, START_FLAGS, startServerProcess, type ServerProcess } from "../../src/server/testing/server-process";
import { freePort } from "../../src/server/testing/free-port";
import { createUserWithSession } from "../../src/server/testing/users";

/** Starting a process loads every module from disk: slow on a loaded machine, so generous. */
const SLOW = 600_000;
const METRICS_TOKEN = "metrics-token-0123456789";
let dist: { dir: string; remove(): void };
let serverJs: string;
const started: ServerProcess[] = [];

function start(env: Record<string, string>): ServerProcess {
  const server = startServerProcess(serverJs, { SHUTDOWN_TIMEOUT_SECONDS: "60", ...env });
  started.push(server);
  return server;
}

beforeAll(async () => {
  dist = await buildServerForTest();
  serverJs = path.join(dist.dir, "server.js");
});
afterAll(() => {
  for (const server of started) if (server.child.exitCode === null) server.child.kill("SIGKILL");
  dist.remove();
});

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-proc-"));
/** A fresh connection per request, so the kernel spreads them over the workers. */
const get = (url: string, headers: Record<string, string> = {}) => fetch(url, { headers: { connection: "close", ...headers } });

it("runs the tests on Node 24", () => {
  expect(Number(process.versions.node.split(".")[0])).toBeGreaterThanOrEqual(24);
});

describe("the log", () => {
  it("is pretty on a terminal: a line a record, the level in words, Beijing time; JSON when piped (every other test here)", async () => {
    // util-linux's `script` gives the server a pseudo-terminal for its standard output.
    const command = [PROJECT_NODE, ...START_FLAGS, serverJs].map((word) => `'${word}'`).join(" ");
    const child = spawn("script", ["-qfec", command, "/dev/null"], {
      env: { ...process.env, LOG_LEVEL: "info", HOST: "127.0.0.1", PORT: "0", DATA_DIR: tempDir(), DATABASE_URL: "" },
      // Kept open: `script` spins when its standard input ends.
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    let raw = "";
    let output = "";
    const ready = new Promise<string>((resolve, reject) => {
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        raw += chunk;
        output = stripVTControlCharacters(raw);
        const line = output.split(/\r?\n/).find((text) => /: ready$/.test(text));
        if (line) resolve(line);
      });
      child.once("exit", () => reject(new Error(`exited before ready:\n${output}`)));
    });
    try {
      expect(await ready).toMatch(/^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+08:00\] INFO.*: ready$/);
      expect(output).not.toMatch(/^\{"level"/m);
    } finally {
      process.kill(-child.pid!, "SIGKILL");
    }
  }, SLOW);
});

describe("one process on PGlite", () => {
  it("starts from the compiled JavaScript on Node 24 and serves", async () => {
    const server = start({ DATA_DIR: tempDir(), DATABASE_URL: "" });
    const ready = await server.logLine((line) => line.msg === "ready");
    expect(String(ready.node)).toMatch(/^v2[4-9]\./);
    const url = await readyUrl(server);
    const health = await get(`${url}/api/v1/health`);
    expect(health.status).toBe(200);
    expect(await (await get(`${url}/api/v1/ready`)).json()).toEqual({ status: "ready", draining: false, checks: { database: true } });
    // No METRICS_TOKEN: no /metrics.
    expect((await get(`${url}/metrics`)).status).toBe(404);
    server.child.kill("SIGTERM");
    expect(await server.exited).toEqual({ code: 0, signal: null });
  }, SLOW);

  // Issue 14's goal of ≤ 300 MB resident on PGlite, for a first start too: a new data folder is a
  // copy of the build's migrated template (docs/decisions/035); made by initdb it read 570-690 MB.
  it("starts a new data folder as a copy of the build's template: owner-only, under 300 MB resident, kept across a restart", async () => {
    const dataDir = tempDir();
    const first = start({ DATA_DIR: dataDir, DATABASE_URL: "" });
    const url = await readyUrl(first);
    expect((await get(`${url}/api/v1/tools`)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const rssMb = Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${first.child.pid}/status`, "utf8"))?.[1]) / 1024;
    expect(rssMb).toBeGreaterThan(0);
    expect(rssMb).toBeLessThanOrEqual(300);
    const database = path.join(dataDir, "pglite");
    expect(fs.readFileSync(path.join(database, "PG_VERSION"), "utf8").trim()).toMatch(/^\d+$/);
    const reachable = (fs.readdirSync(database, { recursive: true }) as string[]).filter((entry) => (fs.statSync(path.join(database, entry)).mode & 0o077) !== 0);
    expect(reachable).toEqual([]);
    first.child.kill("SIGTERM");
    expect(await first.exited).toEqual({ code: 0, signal: null });

    const again = start({ DATA_DIR: dataDir, DATABASE_URL: "" });
    expect((await get(`${await readyUrl(again)}/api/v1/tools`)).status).toBe(200);
    again.child.kill("SIGTERM");
    expect(await again.exited).toEqual({ code: 0, signal: null });
  }, SLOW);

  it("refuses a DATA_DIR whose embedded database another running server holds, and leaves that server and its admin socket be", async () => {
    const dataDir = tempDir();
    const first = start({ DATA_DIR: dataDir, DATABASE_URL: "" });
    const firstUrl = await readyUrl(first);
    const second = start({ DATA_DIR: dataDir, DATABASE_URL: "" });
    // Whichever comes first: its exit, or its serving beside the first (the mistake).
    const outcome = await Promise.race([second.exited.then(({ code }) => `exited ${code}`), readyUrl(second).then(() => "served beside the first server")]);
    if (second.child.exitCode === null) second.child.kill("SIGTERM");
    expect(outcome).toBe("exited 1");
    // Its one message, no stack trace.
    expect(second.stderr().trim()).toBe(
      `DATA_DIR ${dataDir} is in use: a Tollgate server is running on its embedded database (its admin socket answers), and PGlite belongs to one process. Stop that server first, or give this one a DATA_DIR of its own (or a DATABASE_URL).`,
    );
    expect((await get(`${firstUrl}/api/v1/health`)).status).toBe(200);
    expect(fs.existsSync(path.join(dataDir, "admin.sock"))).toBe(true);
    first.child.kill("SIGTERM");
    expect(await first.exited).toEqual({ code: 0, signal: null });
  }, SLOW);

  it("lets one of two servers started at once on a new DATA_DIR open its embedded database; the other exits 1 naming it, before it has an admin socket", async () => {
    const dataDir = tempDir();
    const both = [start({ DATA_DIR: dataDir, DATABASE_URL: "" }), start({ DATA_DIR: dataDir, DATABASE_URL: "" })];
    const outcomes = await Promise.all(both.map((server) => Promise.race([server.exited.then(({ code }) => `exited ${code}`), readyUrl(server).then(() => "serves")])));
    expect([...outcomes].sort()).toEqual(["exited 1", "serves"]);
    const serving = both[outcomes.indexOf("serves")]!;
    const refused = both[outcomes.indexOf("exited 1")]!;
    expect(refused.stderr().trim()).toMatch(new RegExp(`^DATA_DIR ${dataDir} is in use: (process ${serving.child.pid} has its embedded database open|a Tollgate server is running)`));
    expect((await get(`${await readyUrl(serving)}/api/v1/health`)).status).toBe(200);
    // Killed, it leaves its lock file; the next start takes the folder at once.
    serving.child.kill("SIGKILL");
    await serving.exited;
    const next = start({ DATA_DIR: dataDir, DATABASE_URL: "" });
    expect((await get(`${await readyUrl(next)}/api/v1/tools`)).status).toBe(200);
    next.child.kill("SIGTERM");
    expect(await next.exited).toEqual({ code: 0, signal: null });
  }, SLOW);

  it("stops with exit 1 on a mistake in the tool catalog, saying what it is, with no stack trace", async () => {
    const catalog = path.join(tempDir(), "tools.json");
    fs.writeFileSync(catalog, JSON.stringify({ tools: [{ id: "echo", name: "Echo", description: "d", category: "c", price: "x", handler: { type: "builtin", name: "echo" } }] }));
    const server = start({ DATA_DIR: tempDir(), DATABASE_URL: "", TOOLS_CATALOG: catalog });
    expect((await server.exited).code).toBe(1);
    expect(server.stderr().trim()).toBe(`Invalid tool catalog ${catalog}:\n  - tools.0.price: must be a non-negative decimal such as 0.01 (tool "echo")`);
  }, SLOW);

  it("refuses more than one process, saying why", async () => {
    const server = start({ DATA_DIR: tempDir(), DATABASE_URL: "", WEB_CONCURRENCY: "2" });
    expect((await server.exited).code).toBe(78);
    expect(server.stderr()).toContain("WEB_CONCURRENCY: more than one process needs a PostgreSQL server (DATABASE_URL)");
  }, SLOW);
});

describe("one process and a PostgreSQL database out of reach", () => {
  it("stops with exit 1 on a PostgreSQL database it cannot reach, naming it without its password, with no stack trace", async () => {
    const server = start({ DATA_DIR: tempDir(), DATABASE_URL: "postgres://postgres:hunter2@127.0.0.1:5432/tollgate_no_such_database" });
    expect((await server.exited).code).toBe(1);
    expect(server.stderr().trim()).toBe('cannot open the PostgreSQL database at postgres://postgres@127.0.0.1:5432/tollgate_no_such_database: database "tollgate_no_such_database" does not exist');
  }, SLOW);
});

describe("WEB_CONCURRENCY workers on PostgreSQL", () => {
  let database: { url: string; drop(): Promise<void> };
  let upstream: http.Server;
  /** Calls the fake tool holds until the test lets them go. */
  const held: http.ServerResponse[] = [];
  let catalog: string;

  beforeAll(async () => {
    database = await emptyPostgresDatabase();
    upstream = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        held.push(res);
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    const port = (upstream.address() as AddressInfo).port;
    catalog = path.join(tempDir(), "tools.json");
    fs.writeFileSync(
      catalog,
      JSON.stringify({
        tools: [
          { id: "held", name: "held", description: "answers when the test says", category: "test", price: "0.01", handler: { type: "http", url: `http://127.0.0.1:${port}/`, timeoutMs: 60_000 } },
        ],
      }),
    );
  });
  afterAll(async () => {
    for (const res of held) res.destroy();
    upstream.close();
    await database?.drop();
  });

  it("migrates once when several start together, shares the port, scrapes all workers at once, and drains on SIGTERM", async () => {
    const env = { DATABASE_URL: database.url, DATA_DIR: tempDir(), WEB_CONCURRENCY: "2", METRICS_TOKEN, TOOLS_CATALOG: catalog };
    // A cluster and `npm run migrate` at once on an empty database: the advisory lock lets one
    // migrate, the others find nothing left to do.
    const first = start(env);
    const migration = startServerProcess(path.join(dist.dir, "migrate.js"), { DATABASE_URL: database.url, DATA_DIR: tempDir() });
    started.push(migration);
    const url = await readyUrl(first);
    expect(await migration.exited).toEqual({ code: 0, signal: null });

    const check = new pg.Client({ connectionString: database.url });
    check.on("error", () => undefined);
    await check.connect();
    const journal = JSON.parse(fs.readFileSync("drizzle/meta/_journal.json", "utf8")) as { entries: unknown[] };
    const applied = await check.query<{ n: string; distinct_hashes: string }>("select count(*) as n, count(distinct hash) as distinct_hashes from drizzle.__drizzle_migrations");
    expect(applied.rows[0]).toEqual({ n: String(journal.entries.length), distinct_hashes: String(journal.entries.length) });

    // Both workers answer on the one port, and one scrape counts the requests of both.
    for (let i = 0; i < 20; i++) {
      const res = await get(`${url}/api/v1/health`);
      expect(res.status).toBe(200);
    }
    const workers = new Set(first.lines.filter((line) => String(line.msg).startsWith("Server listening")).map((line) => line.pid));
    expect(workers.size).toBe(2);
    expect((await get(`${url}/metrics`)).status).toBe(401);
    const scrape = await get(`${url}/metrics`, { authorization: `Bearer ${METRICS_TOKEN}` });
    expect(scrape.status).toBe(200);
    const text = await scrape.text();
    const healthCount = /tollgate_http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/health",status="200"\} (\d+)/.exec(text);
    expect(Number(healthCount?.[1])).toBe(20);
    for (const name of ["nodejs_eventloop_lag_seconds", "tollgate_db_connections", "tollgate_db_waiting"]) expect(text).toContain(name);
    expect(text).toMatch(/^tollgate_workers 2$/m);
    expect(text).toMatch(/^tollgate_workers_configured 2$/m);

    // A gateway call in flight when SIGTERM arrives is answered and charged once; then every process exits.
    const setup = openPostgres(database.url, 1);
    const user = await createUserWithSession({ database: setup, clock: systemClock }, { balance: "1" });
    await setup.close();
    const keyRes = await fetch(`${url}/api/v1/console/keys`, { method: "POST", headers: { ...user.headers, "content-type": "application/json" }, body: JSON.stringify({ name: "drain" }) });
    expect(keyRes.status).toBe(201);
    const secret = ((await keyRes.json()) as { secret: string }).secret;
    const inFlight = fetch(`${url}/v1/tools/held`, { method: "POST", headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" }, body: "{}" });
    await expect.poll(() => held.length, { timeout: 30_000 }).toBe(1);
    first.child.kill("SIGTERM");
    await first.logLine((line) => line.msg === "shutting down: finishing requests in flight");
    // Draining: the port no longer takes new connections once both workers have closed it.
    held[0]!.writeHead(200, { "content-type": "application/json" }).end('{"done":true}');
    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ done: true });
    expect(await first.exited).toEqual({ code: 0, signal: null });
    await expect(get(`${url}/api/v1/health`)).rejects.toThrow();

    const charged = await check.query<{ status: string; n: string }>("select status, count(*) as n from usage_records group by status");
    expect(charged.rows).toEqual([{ status: "succeeded", n: "1" }]);
    const balance = await check.query<{ balance: string }>("select balance::text as balance from users where id = $1", [user.userId]);
    expect(balance.rows[0]!.balance).toBe("990000");
    await check.end();
  }, SLOW);
});

describe("WEB_CONCURRENCY workers that end", () => {
  let database: { url: string; drop(): Promise<void> };
  beforeAll(async () => {
    database = await emptyPostgresDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("are replaced when every worker ends at once, the primary running on and serving again", async () => {
    // A port of its own: with PORT=0 the workers that replace them would share a new one.
    const server = start({ DATABASE_URL: database.url, DATA_DIR: tempDir(), WEB_CONCURRENCY: "2", PORT: String(await freePort()) });
    const url = await readyUrl(server);
    const workers = [...new Set(server.lines.filter((line) => String(line.msg).startsWith("Server listening")).map((line) => Number(line.pid)))];
    expect(workers).toHaveLength(2);
    for (const pid of workers) process.kill(pid, "SIGKILL");
    await expect.poll(() => server.lines.filter((line) => line.msg === "a worker stopped; starting another").length, { timeout: 30_000 }).toBe(2);
    await expect.poll(async () => (await get(`${url}/api/v1/ready`).catch(() => null))?.status, { timeout: 120_000, interval: 200 }).toBe(200);
    expect(server.child.exitCode).toBeNull();
    server.child.kill("SIGTERM");
    expect(await server.exited).toEqual({ code: 0, signal: null });
  }, SLOW);

  it("still starting when the primary gets SIGTERM end too, and the primary exits 0 at once, not at the shutdown deadline", async () => {
    // A worker loading its modules does not listen for the primary's message yet.
    const server = start({ DATABASE_URL: database.url, DATA_DIR: tempDir(), WEB_CONCURRENCY: "2", LOG_LEVEL: "debug" });
    await expect.poll(() => server.lines.some((line) => line.msg === "a worker started"), { timeout: 120_000, interval: 20 }).toBe(true);
    server.child.kill("SIGTERM");
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.lines.map((line) => line.msg)).toContain("all workers stopped");
  }, SLOW);

  it("end the primary with exit 1 when they cannot start (a mistake in the catalog), not 0, which a supervisor would not restart", async () => {
    const catalog = path.join(tempDir(), "tools.json");
    fs.writeFileSync(catalog, JSON.stringify({ tools: [{ id: "echo", name: "Echo", description: "d", category: "c", price: "0.0000001", handler: { type: "builtin", name: "echo" } }] }));
    const server = start({ DATABASE_URL: database.url, DATA_DIR: tempDir(), WEB_CONCURRENCY: "2", TOOLS_CATALOG: catalog });
    expect(await server.exited).toEqual({ code: 1, signal: null });
    expect(server.stderr()).toContain("tools.0.price: must be a non-negative decimal");
    expect(server.lines.map((line) => line.msg)).toContain("workers keep failing to start (the reason is above): stopping");
  }, SLOW);
});

describe("idle memory of one process on PostgreSQL", () => {
  let database: { url: string; drop(): Promise<void> };
  beforeAll(async () => {
    database = await emptyPostgresDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  // Issue 14's goal: ≤ 150 MB resident once started and idle (bench/startup/README.md measures it).
  // Before drizzle-orm was compiled into the bundle (docs/decisions/029) this read 165–171 MB.
  it("stays under 150 MB resident after a restart on a migrated database", async () => {
    const env = { DATABASE_URL: database.url, DATA_DIR: tempDir() };
    const migrating = start(env);
    await readyUrl(migrating);
    migrating.child.kill("SIGTERM");
    await migrating.exited;

    const server = start(env);
    const url = await readyUrl(server);
    expect((await get(`${url}/api/v1/health`)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const status = fs.readFileSync(`/proc/${server.child.pid}/status`, "utf8");
    const rssMb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) / 1024;
    expect(rssMb).toBeGreaterThan(0);
    expect(rssMb).toBeLessThanOrEqual(150);
    server.child.kill("SIGTERM");
    expect(await server.exited).toEqual({ code: 0, signal: null });
  }, SLOW);
});
