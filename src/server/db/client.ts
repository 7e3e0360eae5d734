import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { DrizzleQueryError, sql, type SQL } from "drizzle-orm";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import pg from "pg";
import { lockEmbeddedDatabase } from "./embedded-lock";
import { applyMigrations } from "./migrations";
import { PgliteOnThread } from "./pglite-on-thread";
import * as schema from "./schema/index";

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

export interface Database {
  db: Db;
  kind: "pglite" | "postgres";
  /** Applies the migrations the database has not recorded; resolves to how many. */
  migrate(): Promise<number>;
  close(): Promise<void>;
  /** PGlite only: the whole database as a tarball another instance can start from. */
  dump?(): Promise<Blob>;
  /** For metrics: connections (PGlite: its one thread) and the work waiting for one. */
  queueStats?(): { total: number; idle: number; waiting: number };
  /**
   * PostgreSQL only: LISTEN on a channel with a connection of its own, reconnected with back-off
   * when it drops (notifications sent meanwhile are lost: `onDown` and `onUp` say when). Resolves,
   * once listening, to an unsubscribe.
   */
  listen?(channel: string, handlers: ListenHandlers): Promise<() => Promise<void>>;
}

export interface ListenHandlers {
  onMessage(payload: string): void;
  onDown(error: unknown): void;
  onUp(): void;
  /** A reconnect attempt failed (`attempt` counts from 1 since the loss); the next one comes in `nextDelayMs`. */
  onRetryFailed?(error: unknown, attempt: number, nextDelayMs: number): void;
}

/** How the listening connection names itself in pg_stat_activity. */
export const LISTENER_APPLICATION_NAME = "tollgate-listener";
const LISTEN_RETRY_FIRST_MS = 100;
const LISTEN_RETRY_MAX_MS = 5000;

/** The package's folder: the nearest one above this module with a package.json, from src/ or from the compiled dist/. */
function packageRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, "package.json"))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const MIGRATIONS_DIR = path.join(packageRoot(path.dirname(fileURLToPath(import.meta.url))), "drizzle");

/** Arbitrary constant: serialises migrations when several server processes start at once. */
const MIGRATION_LOCK_ID = 720_413_001;

/** Where the database layer reports what it recovers from on its own; the server passes its logger. */
export interface DatabaseLog {
  warn(fields: { err: unknown }, message: string): void;
}
/** Without a logger (the CLI, tests), one line per event: a dropped test database's pool would print whole error objects. */
const STDERR_LOG: DatabaseLog = {
  warn: (fields, message) => console.error(`${message}: ${fields.err instanceof Error ? fields.err.message : String(fields.err)}`),
};

export function openPostgres(url: string, poolSize = 10, log: DatabaseLog = STDERR_LOG): Database {
  // Every statement here is short or a bounded scan: JIT compiling one costs more than it saves
  // (1.6 s of compiling for a 0.2 s scan of a 600,000-entry ledger, decision 021).
  const pool = new pg.Pool({ connectionString: url, max: poolSize, options: "-c jit=off" });
  pool.on("error", (error) => log.warn({ err: error }, "an idle database connection was lost; the pool opens another on next use"));
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  return {
    db,
    kind: "postgres",
    async migrate() {
      const client = await pool.connect();
      try {
        await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK_ID]);
        return await applyMigrations(drizzlePg(client, { schema }), MIGRATIONS_DIR);
      } finally {
        // The lock ends with the session anyway; a failed unlock only means the connection is gone.
        await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK_ID]).catch((error: unknown) => log.warn({ err: error }, "could not release the migration lock"));
        client.release();
      }
    },
    close: () => pool.end(),
    queueStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    listen: (channel, handlers) => listenWithReconnect(url, channel, handlers),
  };
}

/** Ends a client whose connection already failed, a failure its owner reports; ending it can only fail the same way. */
function endBrokenClient(client: pg.Client): void {
  client.end().catch(() => undefined);
}

async function listenWithReconnect(url: string, channel: string, handlers: ListenHandlers): Promise<() => Promise<void>> {
  let current: pg.Client | undefined;
  let stopped = false;
  let attempt = 0;
  let retry: NodeJS.Timeout | undefined;

  const connect = async () => {
    const client = new pg.Client({ connectionString: url, application_name: LISTENER_APPLICATION_NAME, keepAlive: true });
    const lost = (error: unknown) => {
      if (current !== client) return;
      current = undefined;
      endBrokenClient(client);
      if (stopped) return;
      handlers.onDown(error);
      reconnectLater();
    };
    client.on("error", lost);
    client.on("end", () => lost(new Error("the listening connection ended")));
    client.on("notification", (message) => {
      if (message.channel === channel && message.payload) handlers.onMessage(message.payload);
    });
    try {
      await client.connect();
      await client.query(`listen "${channel.replace(/"/g, "")}"`);
    } catch (error) {
      endBrokenClient(client);
      throw error;
    }
    current = client;
  };

  const nextDelay = () => Math.min(LISTEN_RETRY_FIRST_MS * 2 ** attempt, LISTEN_RETRY_MAX_MS) * (0.5 + Math.random() / 2);
  const reconnectLater = (delay = nextDelay()) => {
    attempt += 1;
    const thisAttempt = attempt;
    retry = setTimeout(() => {
      connect().then(
        async () => {
          if (stopped) {
            const late = current;
            current = undefined;
            return late?.end();
          }
          attempt = 0;
          handlers.onUp();
        },
        (error: unknown) => {
          if (stopped) return;
          const next = nextDelay();
          handlers.onRetryFailed?.(error, thisAttempt, Math.round(next));
          reconnectLater(next);
        },
      );
    }, delay);
    retry.unref();
  };

  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    const client = current;
    current = undefined;
    await client?.end();
  };
}

/**
 * PostgreSQL's default 128 MB of shared buffers is all written at start inside PGlite's
 * WebAssembly memory, so it was most of an idle process's memory. An embedded database of this
 * size is read through the operating system's file cache; 16 MB holds what the gateway touches.
 */
const PGLITE_START_PARAMS = [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"];

/**
 * `dataDir` undefined keeps the database in memory; `template` is a dump made by dumpDataDir.
 * `onThread` runs it on a worker thread of its own (pglite-on-thread.ts), as the server does.
 */
export function openPglite(options: { dataDir?: string; template?: Uint8Array; onThread?: boolean }): Database {
  if (options.dataDir) fs.mkdirSync(options.dataDir, { recursive: true });
  if (options.onThread) {
    const client = new PgliteOnThread({ dataDir: options.dataDir, template: options.template, startParams: PGLITE_START_PARAMS });
    return pgliteDatabase(client.asPglite(), {
      close: () => client.close(),
      queueStats: () => ({ total: 1, idle: client.waiting === 0 ? 1 : 0, waiting: client.waiting }),
    });
  }
  const client = new PGlite({ dataDir: options.dataDir, loadDataDir: options.template && new Blob([options.template as BlobPart]), startParams: PGLITE_START_PARAMS });
  return pgliteDatabase(client, {
    async close() {
      if (!client.closed) await client.close();
    },
    dump: () => client.dumpDataDir("none"),
  });
}

function pgliteDatabase(client: PGlite, rest: Pick<Database, "close" | "dump" | "queueStats">): Database {
  const db = drizzlePglite({ client, schema });
  return {
    db: db as unknown as Db,
    kind: "pglite",
    migrate: () => applyMigrations(db, MIGRATIONS_DIR),
    ...rest,
  };
}

/**
 * A migrated, empty PGlite data folder that `npm run build` writes beside the compiled server
 * (scripts/build-server.ts, docs/decisions/035). A new data folder is a copy of it, so the first
 * start is a restart: PGlite's initdb takes seconds of CPU and leaves a second WebAssembly
 * instance's memory behind for the life of the process. Run from the sources there is none, and
 * a new folder is made by initdb.
 */
export const PGLITE_TEMPLATE_DIR = "pglite-template";

/**
 * Copies the built template into `dataDir` if that is new or empty: folders under the process
 * umask, files owner-only as PostgreSQL makes its own. The kernel copies each file: read into the
 * process, a 16 MB WAL segment stayed in its memory until a collection came, up to 20 MB of a new
 * process's resident memory (issue 14's 300 MB) one start in two.
 */
function startFromBuiltTemplate(dataDir: string): void {
  if (fs.existsSync(dataDir) && fs.readdirSync(dataDir).length > 0) return;
  const template = fileURLToPath(new URL(`./${PGLITE_TEMPLATE_DIR}`, import.meta.url));
  if (!fs.existsSync(template)) return;
  const copy = (from: string, to: string) => {
    if (fs.statSync(from).isDirectory()) {
      fs.mkdirSync(to, { recursive: true });
      for (const entry of fs.readdirSync(from)) copy(path.join(from, entry), path.join(to, entry));
    } else {
      fs.copyFileSync(from, to);
      fs.chmodSync(to, 0o600);
    }
  };
  copy(template, dataDir);
}

/** The embedded database's own folder inside DATA_DIR. */
export const pgliteDataDir = (dataDir: string) => path.join(dataDir, "pglite");

/**
 * Whether DATA_DIR holds an embedded database: PostgreSQL's data directory layout, which PGlite
 * keeps, starts with the file PG_VERSION, written by initdb (or copied from the built template).
 * A folder without it is new, or one an initdb never finished.
 */
export function hasPgliteDatabase(dataDir: string): boolean {
  return fs.existsSync(path.join(pgliteDataDir(dataDir), "PG_VERSION"));
}

export function openDatabase(config: { databaseUrl?: string; dataDir: string }, log?: DatabaseLog): Database {
  if (config.databaseUrl) return openPostgres(config.databaseUrl, undefined, log);
  const release = lockEmbeddedDatabase(config.dataDir);
  try {
    const dataDir = pgliteDataDir(config.dataDir);
    startFromBuiltTemplate(dataDir);
    const database = openPglite({ dataDir, onThread: true });
    return { ...database, close: () => database.close().finally(release) };
  } catch (error) {
    release();
    throw error;
  }
}

/** Whether the database answers; `onError` hears why not. */
export async function pingDatabase(db: Db, onError?: (error: unknown) => void): Promise<boolean> {
  try {
    await db.execute(sql`select 1`);
    return true;
  } catch (error) {
    onError?.(error);
    return false;
  }
}

/** Raw SQL rows; both drivers answer `execute` with `{ rows }`. */
export async function queryRows<T>(db: Db | Tx, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

const { builtins } = pg.types;
/** Types drizzle's node-postgres driver reads as text (dates, times, intervals, numeric[]), so `preparedRows` answers as `queryRows`. */
const TEXT_TYPES = new Set<number>([builtins.TIMESTAMPTZ, builtins.TIMESTAMP, builtins.DATE, builtins.INTERVAL, 1231, 1115, 1185, 1187, 1182]);
const keepText = (value: string) => value;
const DRIZZLE_TYPES = {
  getTypeParser: ((typeId: number, format?: "text" | "binary") =>
    TEXT_TYPES.has(typeId) ? keepText : pg.types.getTypeParser(typeId, format)) as typeof pg.types.getTypeParser,
};

/** A statement run on every metered call: its name on the connection and its text, with `$n` parameters. */
export interface PreparedStatement {
  name: string;
  text: string;
}

/**
 * The statement as a drizzle query with the same parameters, for a transaction (it has its own
 * connection) or an in-process PGlite. Arrays go as array literals (`arrayLiteral`): drizzle would
 * render a JavaScript array as a list of parameters.
 */
function boundQuery(statement: PreparedStatement, params: unknown[]): SQL {
  if (params.some(Array.isArray)) throw new Error(`${statement.name}: pass arrays as array literals, not JavaScript arrays`);
  const parts = statement.text.split(/\$(\d+)/);
  return sql.join(
    parts.map((part, i) => (i % 2 === 0 ? sql.raw(part) : sql`${params[Number(part) - 1]}`)),
    sql.raw(""),
  );
}

/**
 * The rows of a statement run on every metered call, prepared by name: parsed and planned once
 * per PostgreSQL connection, or once on PGlite's thread, instead of on every call
 * (docs/decisions/032). Its text is a constant, not a drizzle template: building and rendering
 * one cost more server CPU per call than the rest of the call's database client work. Errors
 * come wrapped as from `queryRows`. In a transaction, or on an in-process PGlite (scripts), it runs
 * unprepared through drizzle, as `queryRows` does.
 */
export async function preparedRows<T>(db: Db | Tx, statement: PreparedStatement, params: unknown[]): Promise<T[]> {
  const client = (db as { $client?: unknown }).$client;
  try {
    if (client instanceof pg.Pool) {
      return (await client.query<T & pg.QueryResultRow>({ name: statement.name, text: statement.text, values: params, types: DRIZZLE_TYPES })).rows;
    }
    if (client instanceof PgliteOnThread) return (await client.prepared<T>(statement.name, statement.text, params)).rows;
  } catch (error) {
    throw new DrizzleQueryError(statement.text, params, error as Error);
  }
  return queryRows<T>(db, boundQuery(statement, params));
}
