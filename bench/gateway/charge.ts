/**
 * The lone call's charge alone (run on demand: `npm run bench:charge -- [--db postgres|pglite]`):
 * the database CPU one `charge_call` costs, without the server around it. Each git revision named
 * by `--refs` (default: the working tree, `.`; e.g. `--refs HEAD~1,.`) gets a database made by that
 * revision's migrations, with one user and one key; the revisions then take turns, `--rounds`
 * times, each charging `--calls` calls one after the other.
 *
 * PostgreSQL: the CPU of the connection's backend (its /proc/PID/stat), and the wall time per
 * charge; `--sync off` commits without waiting for the disk, leaving the CPU alone in the wall time.
 * PGlite: the CPU of this process, which runs PGlite's WebAssembly. `--tool plans` charges a tool
 * with packages instead of a flat price: each call draws its unit from a granted lot (decision 054).
 * `--batch N` charges N calls a statement, as the gateway does under load: `charge_calls`, or
 * `charge_calls_prepaid` for `--tool plans`; the figures stay per call.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import pg from "pg";
import { applyMigrations } from "../../src/server/db/migrations";
import { ROOT } from "../../src/server/testing/server-process";
import { CHARGE_CALLS, CHARGE_CALLS_PREPAID } from "../../src/server/modules/ledger/charges";
import { processCpuMicros } from "./cpu";

const { values: args } = parseArgs({
  options: {
    db: { type: "string", default: "postgres" },
    refs: { type: "string", default: "." },
    calls: { type: "string", default: "3000" },
    rounds: { type: "string", default: "5" },
    sync: { type: "string", default: "on" },
    tool: { type: "string", default: "flat" },
    batch: { type: "string", default: "1" },
  },
});
if (args.db !== "postgres" && args.db !== "pglite") throw new Error(`--db must be postgres or pglite, not ${JSON.stringify(args.db)}`);
if (args.sync !== "on" && args.sync !== "off") throw new Error(`--sync must be on or off, not ${JSON.stringify(args.sync)}`);
if (args.tool !== "flat" && args.tool !== "plans") throw new Error(`--tool must be flat or plans, not ${JSON.stringify(args.tool)}`);
const [ROUNDS, BATCH] = [Number(args.rounds), Number(args.batch)];
if (![Number(args.calls), ROUNDS, BATCH].every((n) => Number.isInteger(n) && n >= 1)) throw new Error("--calls, --rounds and --batch must be whole numbers of at least 1");
/** Whole batches: `--calls` rounded up to a multiple of `--batch`, so the figures per call divide by the calls charged. */
const CALLS = Math.ceil(Number(args.calls) / BATCH) * BATCH;
const refs = args.refs.split(",");
const madeFolders: string[] = [];

/** The revision's migrations folder: the working tree's for `.`, otherwise read out of git. */
function migrationsOf(ref: string): string {
  if (ref === ".") return path.join(ROOT, "drizzle");
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-bench-migrations-"));
  madeFolders.push(folder);
  execFileSync("sh", ["-c", `git -C "$0" archive "$1" drizzle | tar -x -C "$2"`, ROOT, ref, folder]);
  return path.join(folder, "drizzle");
}

/** A flat-priced tool's charge takes the first ten arguments, as every revision's `charge_call` does; a tool with plans' terms came with drizzle/0035. */
const CHARGE = `select o_outcome${args.tool === "plans" ? ", o_prepaid_units" : ""} from charge_call($1::bigint, $2::bigint, $3::text, $4::bigint, $5::bigint, $6::text,
  $7::timestamptz, $8::int, $9::int, $10::timestamptz${args.tool === "plans" ? ", $11::bigint, 0, $7::timestamptz, $7::timestamptz" : ""})`;
const PAYER = `insert into users (id, phone, balance, referral_code) values (1, '13900000001', 1000000000000000, 'BENCH1');
  insert into api_keys (id, user_id, name, key_hash, prefix, last4) values (1, 1, 'bench', 'bench-hash', 'tg_bench', '0000');
  ${
    args.tool === "plans"
      ? `insert into unit_lots (user_id, tool_id, source, label, units_granted, units_left, effective_at, expires_at, created_at, origin)
           values (1, 'echo', 'grant', 'bench', 1000000000000, 1000000000000, now() - interval '1 day', now() + interval '30 days', now(), 'bench');`
      : ""
  }`;
/** A tool with plans' arguments beyond the first ten: a unit's price from the balance. */
const PLANS_ARGUMENTS = args.tool === "plans" ? [100] : [];

/** The statement and its values for the calls `requestIds`, one at a time or as one batch (the gateway's batch statements). */
function chargeOf(requestIds: string[]): { name: string; text: string; values: unknown[] } {
  const at = new Date().toISOString();
  if (requestIds.length === 1) return { name: "charge_call", text: CHARGE, values: [1, 1, "echo", 1, 100, requestIds[0], at, 200, 1, at, ...PLANS_ARGUMENTS] };
  const each = <T>(value: T) => requestIds.map(() => value);
  const flat = [each(1), each(1), each("echo"), each(1), each(100), requestIds, each(at), each(200), each(1), each(at)];
  return args.tool === "plans" ? { ...CHARGE_CALLS_PREPAID, values: [...flat, each(0), each(at), each(at), each(false)] } : { ...CHARGE_CALLS, values: flat };
}

/** A refused charge, or one the lot did not pay, would measure something else. */
type ChargeRow = { o_outcome: string; o_prepaid_units?: unknown };
function checkCharged(rows: ChargeRow[], calls: number): void {
  const wrong = rows.find((row) => row.o_outcome !== "ok" || (PLANS_ARGUMENTS.length > 0 && Number(row.o_prepaid_units) !== 1));
  if (rows.length !== calls || wrong) throw new Error(`the charge answered ${rows.length} rows for ${calls} calls: ${JSON.stringify(wrong)}`);
}

interface Target {
  charge(requestIds: string[]): Promise<void>;
  /** CPU time (µs) of whatever runs the statement. */
  cpuMicros(): number;
  close(): Promise<void>;
}

async function postgresTarget(migrations: string, index: number): Promise<Target> {
  const base = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
  const name = `tollgate_bench_charge_${index}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  await applyMigrations(drizzlePg(client), migrations);
  await client.query(PAYER);
  if (args.sync === "off") await client.query("set synchronous_commit = off");
  const { rows } = await client.query<{ pid: number }>("select pg_backend_pid() as pid");
  const backend = rows[0]!.pid;
  return {
    async charge(requestIds) {
      checkCharged((await client.query<ChargeRow>(chargeOf(requestIds))).rows, requestIds.length);
    },
    cpuMicros: () => processCpuMicros(backend),
    async close() {
      await client.end();
    },
  };
}

async function pgliteTarget(migrations: string): Promise<Target> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-bench-charge-"));
  const db = new PGlite(dataDir);
  await db.waitReady;
  await applyMigrations(drizzlePglite(db), migrations);
  await db.exec(PAYER);
  return {
    async charge(requestIds) {
      const { text, values } = chargeOf(requestIds);
      checkCharged((await db.query<ChargeRow>(text, values)).rows, requestIds.length);
    },
    cpuMicros: () => {
      const used = process.cpuUsage();
      return used.user + used.system;
    },
    async close() {
      await db.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const targets: Target[] = [];
for (const [i, ref] of refs.entries()) targets.push(await (args.db === "postgres" ? postgresTarget(migrationsOf(ref), i) : pgliteTarget(migrationsOf(ref))));
const cpuPerCharge: number[][] = refs.map(() => []);
const wallPerCharge: number[][] = refs.map(() => []);
let sequence = 0;
/** The next `BATCH` calls' request ids. */
const nextCalls = () => Array.from({ length: BATCH }, () => `call-${sequence++}`);
for (const target of targets) for (let i = 0; i < 200; i += BATCH) await target.charge(nextCalls());
for (let round = 0; round < ROUNDS; round++) {
  for (const [i, target] of targets.entries()) {
    const cpuBefore = target.cpuMicros();
    const started = performance.now();
    for (let call = 0; call < CALLS; call += BATCH) await target.charge(nextCalls());
    wallPerCharge[i]!.push(((performance.now() - started) * 1000) / CALLS);
    cpuPerCharge[i]!.push((target.cpuMicros() - cpuBefore) / CALLS);
  }
}
await Promise.all(targets.map((target) => target.close()));
for (const folder of madeFolders) fs.rmSync(folder, { recursive: true, force: true });

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const load = os.loadavg()[0]!.toFixed(1);
const statement = BATCH === 1 ? "charge_call alone" : `batches of ${BATCH} calls (${args.tool === "plans" ? "charge_calls_prepaid" : "charge_calls"})`;
console.log(`${statement} on ${args.db}, a ${args.tool === "plans" ? "tool with packages" : "flat-priced tool"}${args.db === "postgres" ? ` (synchronous_commit ${args.sync})` : ""}: ${ROUNDS} rounds of ${CALLS} calls per revision, load average ${load}`);
console.table(
  refs.map((ref, i) => ({
    revision: ref === "." ? "working tree" : ref,
    [args.db === "postgres" ? "backend CPU µs, median" : "CPU µs, median"]: Math.round(median(cpuPerCharge[i]!)),
    "per round": cpuPerCharge[i]!.map((v) => Math.round(v)).join(", "),
    "wall µs, median": Math.round(median(wallPerCharge[i]!)),
  })),
);
