/**
 * `tollgate admin …` where there is no Tollgate database (a wrong or missing DATA_DIR, an empty
 * PostgreSQL database): the compiled CLI refuses, naming where it looked, and makes nothing there.
 * A database made by the server's first start or by `npm run migrate` (dist/migrate.js) is used.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildServerForTest, emptyPostgresDatabase, POSTGRES_URL, PROJECT_NODE } from "../testing/server-process";
import { tempDataDir } from "../testing/temp-dir";

let dist: { dir: string; remove(): void };
const dirs: string[] = [];

beforeAll(async () => {
  dist = await buildServerForTest();
}, 600_000);
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  dist?.remove();
});

function run(script: "cli.js" | "migrate.js", env: Record<string, string>, ...args: string[]) {
  return runIn(undefined, script, env, ...args);
}
/** In `cwd`, where a DATA_DIR left unset (as in `env` here) means `./data`. */
function runIn(cwd: string | undefined, script: "cli.js" | "migrate.js", env: Record<string, string>, ...args: string[]) {
  // No SESSION_SECRET: on embedded defaults the secret is one kept in DATA_DIR, which must not be made either.
  const { SESSION_SECRET: _, DATA_DIR: __, ...inherited } = process.env;
  const result = spawnSync(PROJECT_NODE, [path.join(dist.dir, script), ...args], {
    cwd,
    env: { ...inherited, NODE_ENV: "development", LOG_LEVEL: "warn", ...env },
    encoding: "utf8",
  });
  return { code: result.status, out: result.stdout, err: result.stderr };
}
const admin = (env: Record<string, string>, ...args: string[]) => run("cli.js", env, "admin", ...args);

function newDir(): string {
  const dir = tempDataDir("cli-no-db-");
  dirs.push(dir);
  return dir;
}

describe("on the embedded database", () => {
  it("refuses a DATA_DIR that does not exist, naming it, and does not make it", () => {
    const dataDir = path.join(newDir(), "wrong", "data");
    const result = admin({ DATA_DIR: dataDir, DATABASE_URL: "" }, "ledger", "verify");
    expect(result.code).toBe(1);
    expect(result.out).toBe("");
    expect(result.err).toBe(
      `no Tollgate database in ${dataDir}: start the server once with this DATA_DIR (or run \`npm run migrate\`), or set DATA_DIR to the server's; nothing was done\n`,
    );
    expect(fs.existsSync(dataDir)).toBe(false);
    expect(fs.existsSync(path.dirname(dataDir))).toBe(false);
  });

  it("refuses a DATA_DIR with no database in it, prints no codes, and leaves the folder as it was", () => {
    const dataDir = newDir();
    fs.writeFileSync(path.join(dataDir, "notes.txt"), "not a database");
    const result = admin({ DATA_DIR: dataDir, DATABASE_URL: "" }, "codes", "create", "--amount", "10", "--count", "2");
    expect(result.code).toBe(1);
    expect(result.out).toBe("");
    expect(result.err).toMatch(new RegExp(`^no Tollgate database in ${dataDir}: `));
    expect(fs.readdirSync(dataDir)).toEqual(["notes.txt"]);
  });

  it("refuses a DATA_DIR whose admin socket no server answers on, and makes no database there", () => {
    const dataDir = newDir();
    fs.writeFileSync(path.join(dataDir, "admin.sock"), "");
    const result = admin({ DATA_DIR: dataDir, DATABASE_URL: "" }, "ledger", "verify");
    expect(result.code).toBe(1);
    expect(result.err).toMatch(new RegExp(`^no Tollgate database in ${dataDir}: `));
    expect(fs.existsSync(path.join(dataDir, "pglite"))).toBe(false);
  });

  it("answers --help without a database, and uses the database `npm run migrate` made", () => {
    const dataDir = newDir();
    const help = admin({ DATA_DIR: dataDir, DATABASE_URL: "" }, "packages", "--help");
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^usage: tollgate admin packages <command>/);
    expect(fs.readdirSync(dataDir)).toEqual([]);
    const migrated = run("migrate.js", { DATA_DIR: dataDir, DATABASE_URL: "" });
    expect(migrated.err).toBe("");
    expect(migrated.code).toBe(0);
    const verify = admin({ DATA_DIR: dataDir, DATABASE_URL: "" }, "ledger", "verify");
    expect(verify.err).toBe("");
    expect(verify.code).toBe(0);
  }, 60_000);
});

describe("output to a reader that stops early", () => {
  it("ends quietly with the command's own exit code when the pipe closes (`stats | head -1`), and the command is audited as it ran", async () => {
    const dataDir = newDir();
    expect(run("migrate.js", { DATA_DIR: dataDir, DATABASE_URL: "" }).code).toBe(0);
    const { SESSION_SECRET: _, DATA_DIR: __, ...inherited } = process.env;
    // Twenty-seven years of days: far more than a pipe's buffer, so writes go on after the reader has gone.
    const child = spawn(PROJECT_NODE, [path.join(dist.dir, "cli.js"), "admin", "stats", "--from", "2000-01-01", "--to", "2026-12-31"], {
      env: { ...inherited, NODE_ENV: "development", LOG_LEVEL: "warn", DATA_DIR: dataDir, DATABASE_URL: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const first = await new Promise<string>((resolve) => child.stdout.once("data", (chunk: Buffer) => resolve(chunk.toString())));
    child.stdout.destroy();
    const exit = await new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    expect(first).toMatch(/^Figures for 2000-01-01 to 2026-12-31 \(Beijing time\)/);
    expect([exit, stderr]).toEqual([0, ""]);
    const audit = admin({ DATA_DIR: dataDir, DATABASE_URL: "" }, "audit", "--limit", "1", "--json");
    expect((JSON.parse(audit.out) as { command: string; exitCode: number }[]).map((row) => [row.command, row.exitCode])).toEqual([["stats", 0]]);
  }, 60_000);
});

describe("help", () => {
  it.each(["users", "codes", "calls", "sessions", "applications", "ledger", "packages"])(
    "says a command of the %s group is unknown and shows that group's commands, without a database",
    (group) => {
      const dataDir = newDir();
      const result = admin({ DATA_DIR: dataDir, DATABASE_URL: "" }, group, "nosuch", "7");
      expect(result.code).toBe(64);
      expect(result.out).toBe("");
      expect(result.err).toMatch(new RegExp(`^unknown command: ${group} nosuch\n\nusage: tollgate admin ${group} <command> \\[arguments\\]\n`));
      expect(result.err).not.toMatch(/usage: tollgate admin <command>/);
      expect(fs.readdirSync(dataDir)).toEqual([]);
    },
  );
});

describe("on PostgreSQL", () => {
  it("says in one line that a database which does not exist cannot be opened, without its password, and makes no data folder", () => {
    const cwd = newDir();
    const url = new URL(POSTGRES_URL);
    url.pathname = "/tollgate_nosuch_db";
    const result = runIn(cwd, "cli.js", { DATABASE_URL: url.toString() }, "admin", "ledger", "verify");
    url.password = "";
    expect([result.code, result.out]).toEqual([1, ""]);
    expect(result.err).toBe(`cannot open the database at ${url.toString()}: database "tollgate_nosuch_db" does not exist\n`);
    expect(fs.readdirSync(cwd)).toEqual([]);
  });

  it("makes no data folder when it refuses a database with no Tollgate tables", async () => {
    const database = await emptyPostgresDatabase();
    try {
      const cwd = newDir();
      const result = runIn(cwd, "cli.js", { DATABASE_URL: database.url }, "admin", "codes", "create", "--amount", "10", "--count", "2");
      expect([result.code, result.out]).toEqual([1, ""]);
      expect(result.err).toMatch(/^no Tollgate database at .* \(it has no Tollgate tables\)/);
      expect(fs.readdirSync(cwd)).toEqual([]);
    } finally {
      await database.drop();
    }
  }, 60_000);

  it("refuses a database with no Tollgate tables, without its password, and creates no table; works once migrated", async () => {
    const database = await emptyPostgresDatabase();
    try {
      const url = new URL(database.url);
      url.password = "";
      const env = { DATA_DIR: newDir(), DATABASE_URL: database.url };
      const result = admin(env, "codes", "create", "--amount", "10", "--count", "2");
      expect(result.code).toBe(1);
      expect(result.out).toBe("");
      expect(result.err).toBe(
        `no Tollgate database at ${url.toString()} (it has no Tollgate tables): start the server once with this DATABASE_URL (or run \`npm run migrate\`), or set DATABASE_URL to the server's; nothing was done\n`,
      );
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const tables = await client.query("select count(*)::int as n from pg_tables where schemaname not in ('pg_catalog', 'information_schema')");
      await client.end();
      expect(tables.rows[0].n).toBe(0);
      expect(run("migrate.js", env).code).toBe(0);
      const codes = admin(env, "codes", "create", "--amount", "10", "--count", "2");
      expect(codes.code).toBe(0);
      expect(codes.out.trim().split("\n")).toHaveLength(2);
    } finally {
      await database.drop();
    }
  }, 60_000);

  it("names a database given with its host as a query parameter, as pg takes it, without its password", async () => {
    const database = await emptyPostgresDatabase();
    try {
      const url = new URL(database.url);
      const queried = `postgres://${url.username}:secret-pw@/${url.pathname.slice(1)}?host=${url.hostname}&port=${url.port || "5432"}`;
      const result = admin({ DATA_DIR: newDir(), DATABASE_URL: queried }, "ledger", "verify");
      expect([result.code, result.out]).toEqual([1, ""]);
      expect(result.err).toBe(
        `no Tollgate database at ${queried.replace(":secret-pw@", "@")} (it has no Tollgate tables): start the server once with this DATABASE_URL (or run \`npm run migrate\`), or set DATABASE_URL to the server's; nothing was done\n`,
      );
    } finally {
      await database.drop();
    }
  }, 60_000);
});
