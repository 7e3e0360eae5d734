/**
 * The lone call's charge statement alone, on an in-process PGlite: `charge_call` for a flat-priced
 * echo call against the same call drawn from a package (decision 054), alternating, CPU per call.
 * It tells the SQL's share of what a tool with plans adds at one connection from the gateway's. Given
 * a file with another `CREATE OR REPLACE FUNCTION "charge_call"(…)`, it is made as `charge_call_candidate`
 * and its plans calls are measured in the same rounds, so a change to the function is compared in one run.
 * With BENCH_DATA_DIR set, PGlite runs as the server runs it: on its own thread, on a new data folder
 * there (CPU is then the process's, both threads).
 * BENCH_ROUNDS (default 6) sets how many rounds each kind takes turns at; more of them steady the median on a busy machine.
 * `[BENCH_DATA_DIR=/tmp/folder] [BENCH_ROUNDS=n] npx tsx bench/gateway/charge-sql.ts [calls per round] [candidate .sql]`
 */
import fs from "node:fs";
import { sql, type SQL } from "drizzle-orm";
import { openPglite, preparedRows, queryRows } from "../../src/server/db/client";
import { CHARGE_CALL } from "../../src/server/modules/ledger/charges";

const CALLS = Number(process.argv[2] ?? 2000);
const replacement = process.argv[3];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error(`BENCH_ROUNDS must be a whole number of at least 1: ${process.env.BENCH_ROUNDS}`);
const PRICE = 100;

const dataDir = process.env.BENCH_DATA_DIR;
if (dataDir && fs.existsSync(dataDir) && fs.readdirSync(dataDir).length > 0) throw new Error(`BENCH_DATA_DIR must be a new or empty folder: ${dataDir}`);
const database = openPglite(dataDir ? { dataDir, onThread: true } : {});
await database.migrate();
const { db } = database;
const CANDIDATE: typeof CHARGE_CALL = { name: "charge_call_candidate", text: CHARGE_CALL.text.replace("from charge_call(", "from charge_call_candidate(") };
if (replacement) await db.execute(sql.raw(fs.readFileSync(replacement, "utf8").replace('FUNCTION "charge_call"(', 'FUNCTION "charge_call_candidate"(')));
const now = new Date();
const iso = (date: Date) => date.toISOString();
const firstId = async (query: SQL) => (await queryRows<{ id: number }>(db, query))[0]!.id;
const userId = await firstId(sql`insert into users (phone, balance, referral_code) values ('13800000000', 1000000000000, 'bench') returning id`);
const keyId = await firstId(sql`insert into api_keys (user_id, name, key_hash, last4, prefix) values (${userId}, 'bench', 'hash', 'abcd', 'tg_b') returning id`);
await db.execute(sql`insert into unit_lots (user_id, tool_id, source, label, units_granted, units_left, effective_at, expires_at, created_at, origin)
  values (${userId}, 'echo', 'grant', 'Big', 1000000000, 1000000000, ${iso(now)}, ${iso(new Date(now.getTime() + 30 * 86_400_000))}, ${iso(now)}, 'grant:bench:1')`);
// A free quota of one call a day, used up by the first call, as bench/gateway/catalogs/echo-with-plans.json;
// its lot is offered to be made by the first call only, as the gateway does once it has seen it made.
const dayStart = new Date(now.getTime() - (now.getTime() % 86_400_000));
const dayEnd = new Date(dayStart.getTime() + 86_400_000);

let sequence = 0;
let freeUnits = 1;
type Kind = "flat" | "plans" | "candidate";
async function charge(kind: Kind): Promise<void> {
  const plans = kind !== "flat";
  const at = iso(new Date());
  const requestId = `bench-${sequence++}`;
  const params = plans
    ? [userId, keyId, "echo", 1, 0, requestId, at, 200, 1, at, PRICE, freeUnits, iso(dayStart), iso(dayEnd), false]
    : [userId, keyId, "echo", 1, PRICE, requestId, at, 200, 1, at, null, 0, null, null, false];
  const [row] = await preparedRows<{ o_outcome: string }>(db, kind === "candidate" ? CANDIDATE : CHARGE_CALL, params);
  if (row?.o_outcome !== "ok") throw new Error(`the charge was refused: ${row?.o_outcome}`);
  if (plans) freeUnits = 0;
}

const cpuUs = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};
const kinds: Kind[] = replacement ? ["flat", "plans", "candidate"] : ["flat", "plans"];
for (let i = 0; i < 300; i++) for (const kind of kinds) await charge(kind);
const perCall: Record<Kind, number[]> = { flat: [], plans: [], candidate: [] };
for (let round = 0; round < ROUNDS; round++) {
  for (const kind of round % 2 ? [...kinds].reverse() : kinds) {
    const start = cpuUs();
    for (let i = 0; i < CALLS; i++) await charge(kind);
    perCall[kind].push((cpuUs() - start) / CALLS);
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
for (const kind of kinds) console.log(`${kind}: ${perCall[kind].map(Math.round).join(", ")} µs of CPU a call; median ${Math.round(median(perCall[kind]))}`);
console.log(`plans − flat: ${Math.round(median(perCall.plans) - median(perCall.flat))} µs a call`);
if (replacement) {
  const ratios = perCall.candidate.map((us, round) => us / perCall.plans[round]!);
  console.log(`candidate / plans, round by round: ${ratios.map((r) => r.toFixed(3)).join(", ")}; median ${median(ratios).toFixed(3)}`);
}
await database.close();
