// The embedded database's own thread (see pglite-on-thread.ts, which posts the messages handled
// here). Plain JavaScript, so that tsx, Vitest and node start it alike.
import fs from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";

// PGlite's file system (Emscripten's NODEFS) chmods every file it creates to 0666, past the
// umask. The data folder is its owner's alone, as PostgreSQL's own (lib/private-data-dir.ts):
// on this thread, which only PGlite uses, group and other bits never reach the disk.
for (const name of ["chmodSync", "fchmodSync", "lchmodSync"]) {
  const chmod = fs[name];
  if (chmod) fs[name] = (target, mode) => chmod(target, typeof mode === "number" ? mode & ~0o077 : mode);
}

const { dataDir, template, startParams } = workerData;
const db = new PGlite({ dataDir, loadDataDir: template && new Blob([template]), startParams });
/** Open transactions by id: the PGlite transaction and how to end it. */
const transactions = new Map();
const ROLLBACK = Symbol("rollback");

/** PGlite parsers cannot cross threads; the client names the types whose text is kept as it is. */
const parsersByTypes = new Map();
const keepText = (value) => value;
function keepAsText(types) {
  const key = types.join(",");
  let parsers = parsersByTypes.get(key);
  if (!parsers) {
    parsers = Object.fromEntries(types.map((type) => [type, keepText]));
    parsersByTypes.set(key, parsers);
  }
  return parsers;
}

function target(txId) {
  if (txId === undefined) return db;
  const open = transactions.get(txId);
  if (!open) throw new Error(`transaction ${txId} is not open`);
  return open.tx;
}

function begin(txId) {
  return new Promise((begun, failed) => {
    const ended = db.transaction(
      (tx) =>
        new Promise((commit, rollback) => {
          transactions.set(txId, { tx, commit, rollback, ended });
          begun(undefined);
        }),
    );
    ended.catch(failed);
  });
}

async function end(txId, commit) {
  const open = transactions.get(txId);
  if (!open) throw new Error(`transaction ${txId} is not open`);
  transactions.delete(txId);
  if (commit) open.commit(undefined);
  else open.rollback(ROLLBACK);
  try {
    await open.ended;
  } catch (error) {
    if (error !== ROLLBACK) throw error;
  }
}

async function handle(message) {
  switch (message.op) {
    case "query":
      return target(message.tx).query(message.sql, message.params, { rowMode: message.rowMode, parsers: keepAsText(message.textTypes) });
    case "exec":
      return target(message.tx).exec(message.sql);
    case "begin":
      return begin(message.tx);
    case "end":
      return end(message.tx, message.commit);
    case "close":
      await db.close();
      return undefined;
    default:
      throw new Error(`unknown database operation ${message.op}`);
  }
}

/** What the other thread needs of a database error: its message and PostgreSQL's fields. */
function describe(error) {
  if (!(error instanceof Error)) return { message: String(error) };
  const fields = {};
  for (const name of ["code", "severity", "detail", "hint", "position", "schema", "table", "column", "dataType", "constraint", "routine", "where"]) {
    if (error[name] !== undefined) fields[name] = error[name];
  }
  return { name: error.name, message: error.message, fields };
}

function reply(id, outcome) {
  try {
    parentPort.postMessage({ id, ...outcome });
  } catch (error) {
    // A value that cannot cross threads: the caller gets an error instead of waiting forever.
    parentPort.postMessage({ id, ok: false, error: describe(error) });
  }
}

parentPort.on("message", (message) => {
  handle(message).then(
    (value) => reply(message.id, { ok: true, value }),
    (error) => reply(message.id, { ok: false, error: describe(error) }),
  );
});
