// The embedded database's own thread (see pglite-on-thread.ts, which posts the messages handled
// here). Plain JavaScript, so that tsx, Vitest and node start it alike.
import fs from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { parse, PGlite, protocol } from "@electric-sql/pglite";

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

/**
 * The database's parsers with these types' text kept, for `parse.parseResults` without options:
 * given them as options, it copies the database's 300-odd parsers into a new object on every
 * result, about 120 µs of this thread's CPU per statement. The database's own parsers are the
 * prototype, so array types PGlite registers later are still found.
 */
const parsersWithTextByTypes = new Map();
function parsersKeepingText(types) {
  const key = types.join(",");
  let parsers = parsersWithTextByTypes.get(key);
  if (!parsers) {
    parsers = Object.assign(Object.create(db.parsers), keepAsText(types));
    parsersWithTextByTypes.set(key, parsers);
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

/** Names of the statements parsed on this database (see `prepared`). */
const preparedNames = new Set();

/** Sends one protocol message and returns what it answered; a database error is thrown. */
async function send(message) {
  return (await db.execProtocol(message, { syncToFs: false })).messages;
}

/**
 * A statement run as PGlite's `query` runs one, except that it is parsed and planned once, under
 * its name, and then only bound and executed. Never inside a transaction: it waits, as `query`
 * does, until none is open. Parameters go as text: every one is cast in the statement.
 */
async function prepared({ name, sql, params, textTypes }) {
  // As `query` does: the protocol calls below neither wait for the start nor see a closed database.
  await db._checkReady();
  return db._runExclusiveTransaction(() =>
    db._runExclusiveQuery(async () => {
      const messages = [];
      try {
        if (!preparedNames.has(name)) {
          await send(protocol.serialize.parse({ name, text: sql, types: [] }));
          preparedNames.add(name);
        }
        const values = params.map((value) => (value === null ? null : String(value)));
        messages.push(...(await send(protocol.serialize.bind({ statement: name, values }))));
        messages.push(...(await send(protocol.serialize.describe({ type: "P" }))));
        messages.push(...(await send(protocol.serialize.execute({}))));
      } finally {
        messages.push(...(await send(protocol.serialize.sync())));
      }
      await db.syncToFs();
      return parse.parseResults(messages, parsersKeepingText(textTypes))[0];
    }),
  );
}

async function handle(message) {
  switch (message.op) {
    case "query":
      return target(message.tx).query(message.sql, message.params, { rowMode: message.rowMode, parsers: keepAsText(message.textTypes) });
    case "exec":
      return target(message.tx).exec(message.sql);
    case "prepared":
      return prepared(message);
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
