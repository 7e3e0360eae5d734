/**
 * The key-change listener on PostgreSQL: while its connection cannot be opened again, the log says
 * so for each attempt, with its number and when the next one comes, and says when it is back.
 */
import { PassThrough } from "node:stream";
import pg from "pg";
import pino from "pino";
import { afterAll, expect, it, vi } from "vitest";
import { LISTENER_APPLICATION_NAME, openPostgres } from "../../db/client";
import { emptyPostgresDatabase, POSTGRES_URL } from "../../testing/server-process";
import { followApiKeyChanges } from "./changes";

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

it("logs each failed reconnect attempt with its number and next delay, then its return", async () => {
  const target = await emptyPostgresDatabase();
  cleanups.push(() => target.drop());
  const name = new URL(target.url).pathname.slice(1);
  const database = openPostgres(target.url, 1);
  cleanups.push(() => database.close());
  const stream = new PassThrough();
  let logText = "";
  stream.on("data", (chunk: Buffer) => (logText += chunk.toString("utf8")));
  const lines = () =>
    logText
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { level: number; msg: string; attempt?: number; nextDelayMs?: number; err?: { message: string } });
  const stop = await followApiKeyChanges(database, pino({ level: "info" }, stream), {
    evict: () => {},
    changesMayBeMissed: () => {},
    changesHeardAgain: () => {},
  });
  cleanups.push(stop);

  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  cleanups.push(() => admin.end());
  await admin.query(`alter database "${name}" allow_connections false`);
  await admin.query("select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and application_name = $2", [name, LISTENER_APPLICATION_NAME]);
  await vi.waitFor(() => expect(lines().filter((line) => line.attempt !== undefined).length).toBeGreaterThanOrEqual(2), { timeout: 20_000, interval: 50 });
  await admin.query(`alter database "${name}" allow_connections true`);
  await vi.waitFor(() => expect(lines().some((line) => line.msg.startsWith("key-change listener back"))).toBe(true), { timeout: 20_000, interval: 50 });

  const failed = lines().filter((line) => line.attempt !== undefined);
  expect(failed.slice(0, 2)).toEqual([1, 2].map((attempt) =>
    expect.objectContaining({
      level: 40,
      msg: expect.stringMatching(new RegExp(`^key-change listener: reconnect attempt ${attempt} failed, next in \\d+ ms$`)),
      attempt,
      nextDelayMs: expect.any(Number),
      err: expect.objectContaining({ message: expect.stringContaining("not currently accepting connections") }),
    }),
  ));
});
