import { PGlite, protocol, parse } from "@electric-sql/pglite";
const db = new PGlite({ dataDir: "/tmp/pgl-probe/pglite" });
await db.query("insert into users (id, phone, balance, referral_code) values (1,'13900000000', 1000000000000, 'r1') on conflict do nothing");
await db.query("insert into api_keys (id,user_id,name,key_hash,prefix,last4) values (1,1,'k','h','p','l') on conflict do nothing");
const text = `select o_outcome, o_usage_id, o_balance_after::text as o_balance_after from charge_call($1::bigint,$2::bigint,$3::text,$4::bigint,$5::bigint,$6::text,$7::timestamptz,$8::int,$9::int,$10::timestamptz)`;
const values = () => ["1","1",'echo',"1",'100', String(Math.random()), new Date().toISOString(), "200", "1", new Date().toISOString()];
const s = protocol.serialize;
let prepared = false;
async function named() {
  return db._runExclusiveTransaction(() => db._runExclusiveQuery(async () => {
    const messages = [];
    if (!prepared) { messages.push(...(await db.execProtocol(s.parse({ name: "cc", text, types: [] }), { syncToFs: false })).messages); prepared = true; }
    try {
      messages.push(...(await db.execProtocol(s.bind({ statement: "cc", values: values() }), { syncToFs: false })).messages);
      messages.push(...(await db.execProtocol(s.describe({ type: "P" }), { syncToFs: false })).messages);
      messages.push(...(await db.execProtocol(s.execute({}), { syncToFs: false })).messages);
    } finally {
      messages.push(...(await db.execProtocol(s.sync(), { syncToFs: false })).messages);
    }
    return parse.parseResults(messages, db.parsers)[0];
  }));
}
const unnamed = () => db.query(text, values());
console.log((await named()).rows, (await unnamed()).rows);
const N = 2000;
const measure = async (f) => { const c0 = process.cpuUsage(); const t0 = performance.now(); for (let i = 0; i < N; i++) await f(); const c = process.cpuUsage(c0); return [(c.user + c.system) / N, (performance.now() - t0) * 1000 / N]; };
for (let i = 0; i < 200; i++) { await unnamed(); await named(); }
for (let r = 0; r < 4; r++) { const u = await measure(unnamed); const n = await measure(named); console.log(`CPU µs/charge unnamed ${u[0].toFixed(0)} named ${n[0].toFixed(0)} | wall ${u[1].toFixed(0)} / ${n[1].toFixed(0)}`); }
await db.close();
