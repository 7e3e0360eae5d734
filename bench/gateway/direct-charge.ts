/**
 * The database's own part of a metered call, without the gateway: the statement the server charges
 * a lone call with (`charge_call`, durable), sent by a plain client to the server's database for the
 * bench's user and first key. At one connection a call through the gateway cannot add less than
 * this. It is a lower bound: between its charges the backend sleeps only for an unmetered call, a
 * shorter sleep than between a metered call's, and a backend woken later answers later here; so
 * "the gateway's own part" (added − floor) is an upper bound. Beside it, the least any durable write
 * costs: one row into a table of its own, no index, committed.
 */
import pg from "pg";
import { CHARGE_CALL } from "../../src/server/modules/ledger/charges";

export interface DirectCharger {
  /** Charges the price it was made with for one echo call on the user's first key; throws unless it is accepted. */
  charge(): Promise<void>;
  /** Commits one row into `bench_durable_write`, a table with no index that nothing reads. */
  durableWrite(): Promise<void>;
  close(): Promise<void>;
}

/** The user's first key, and the durable write's table made. */
async function prepare(client: pg.Client): Promise<{ user_id: string; id: string }> {
  const [key] = (await client.query<{ user_id: string; id: string }>("select user_id, id from api_keys order by id limit 1")).rows;
  if (!key) throw new Error("no API key to charge: create the bench's keys first");
  await client.query("create table if not exists bench_durable_write (x int)");
  return key;
}

export async function directCharger(databaseUrl: string, amount: bigint): Promise<DirectCharger> {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on("error", (error) => console.error("the direct charger's connection failed:", error.message));
  await client.connect();
  const key = await prepare(client).catch(async (error: unknown) => {
    await client.end();
    throw error;
  });
  let sequence = 0;
  return {
    async charge() {
      const at = new Date().toISOString();
      const requestId = `bench-direct-${process.pid}-${sequence++}`;
      const values = [key.user_id, key.id, "echo", 1, amount.toString(), requestId, at, 200, 0, at, null, 0, null, null, false];
      const [row] = (await client.query<{ o_outcome: string }>({ name: CHARGE_CALL.name, text: CHARGE_CALL.text, values })).rows;
      if (row?.o_outcome !== "ok") throw new Error(`the direct charge was refused: ${row?.o_outcome ?? "no row"}`);
    },
    async durableWrite() {
      await client.query({ name: "bench_durable_write", text: "insert into bench_durable_write values (1)" });
    },
    close: () => client.end(),
  };
}
