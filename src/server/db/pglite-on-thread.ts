import { Worker } from "node:worker_threads";
import { types, type PGlite, type QueryOptions, type Results, type Transaction } from "@electric-sql/pglite";

type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: { name?: string; message: string; fields?: Record<string, unknown> } };

/** A database error from the other thread, with PostgreSQL's fields (code, constraint, detail…) on it. */
export class DatabaseThreadError extends Error {
  [field: string]: unknown;
  constructor(error: { name?: string; message: string; fields?: Record<string, unknown> }) {
    super(error.message);
    this.name = error.name ?? "DatabaseError";
    Object.assign(this, error.fields);
  }
}

/**
 * PGlite on a worker thread of its own, with the part of PGlite's interface drizzle uses (query,
 * exec, transaction, close). PGlite runs Postgres compiled to WebAssembly on the thread that made
 * it; on the server's event-loop thread every statement stops HTTP work, so the gateway's charge
 * batches and the requests they answer could not use the machine's other core
 * (docs/decisions/012). Same semantics as PGlite in-thread: one statement at a time, and an open
 * transaction holds back every other statement until it ends.
 */
export class PgliteOnThread {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: unknown): void }>();
  private nextId = 0;
  private nextTransaction = 0;
  private stopped: Error | null = null;

  /** `template`: a dump made by dumpDataDir to start from; `startParams`: PGlite's. */
  constructor(options: { dataDir?: string; template?: Uint8Array; startParams?: string[] }) {
    this.worker = new Worker(new URL("./pglite-thread.js", import.meta.url), { workerData: options });
    this.worker.on("message", (reply: Reply) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if (reply.ok) waiting.resolve(reply.value);
      else waiting.reject(new DatabaseThreadError(reply.error));
    });
    this.worker.on("messageerror", (error) => this.stop(error));
    this.worker.on("error", (error) => this.stop(error));
    this.worker.on("exit", (code) => this.stop(new Error(`the database thread exited with code ${code}`)));
  }

  /** Statements sent to the thread and not yet answered. */
  get waiting(): number {
    return this.pending.size;
  }

  get closed(): boolean {
    return this.stopped !== null;
  }

  private stop(reason: Error): void {
    this.stopped ??= reason;
    for (const waiting of this.pending.values()) waiting.reject(reason);
    this.pending.clear();
  }

  private call<T>(message: Record<string, unknown>): Promise<T> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      try {
        this.worker.postMessage({ ...message, id });
      } catch (error) {
        this.pending.delete(id);
        reject(error);
      }
    });
  }

  private runQuery<T>(tx: number | undefined, sql: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> {
    // Parsers are functions and cannot cross threads: drizzle's only ones keep a type's text as it is.
    const textTypes = Object.keys(options?.parsers ?? {}).map(Number);
    return this.call({ op: "query", tx, sql, params, rowMode: options?.rowMode, textTypes });
  }

  query<T>(sql: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> {
    return this.runQuery(undefined, sql, params, options);
  }

  /**
   * A statement parsed once under `name` on the database's thread, then only bound and run
   * (docs/decisions/032); its rows as drizzle's `execute` gives them, dates and times as text.
   */
  prepared<T>(name: string, sql: string, params: unknown[]): Promise<Results<T>> {
    return this.call({ op: "prepared", name, sql, params, textTypes: [types.TIMESTAMP, types.TIMESTAMPTZ, types.INTERVAL, types.DATE] });
  }

  exec(sql: string): Promise<Results[]> {
    return this.call({ op: "exec", sql });
  }

  async transaction<T>(callback: (tx: Transaction) => Promise<T>): Promise<T> {
    const id = this.nextTransaction++;
    await this.call({ op: "begin", tx: id });
    let open = true;
    const end = async (commit: boolean) => {
      if (!open) return;
      open = false;
      await this.call({ op: "end", tx: id, commit });
    };
    const tx = {
      query: <R>(sql: string, params?: unknown[], options?: QueryOptions) => this.runQuery<R>(id, sql, params, options),
      exec: (sql: string) => this.call<Results[]>({ op: "exec", tx: id, sql }),
      rollback: () => end(false),
      get closed() {
        return !open;
      },
    } as unknown as Transaction;
    let result: T;
    try {
      result = await callback(tx);
    } catch (error) {
      // The callback's error says what went wrong; a failed rollback (the thread gone) would only hide it.
      await end(false).catch(() => undefined);
      throw error;
    }
    await end(true);
    return result;
  }

  private closing: Promise<void> | null = null;

  /** Waits for the statements already sent, closes PGlite, and ends the thread even if that fails. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      try {
        if (!this.stopped) await this.call({ op: "close" });
      } finally {
        this.stop(new Error("the database is closed"));
        await this.worker.terminate();
      }
    })();
    return this.closing;
  }

  /** For drizzle, which is typed for PGlite itself. */
  asPglite(): PGlite {
    return this as unknown as PGlite;
  }
}
