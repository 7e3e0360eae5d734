import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { buildServerForTest, emptyPostgresDatabase, startServerProcess, type ServerProcess } from "./server-process";

/** What a test that kills the compiled server mid-call works with; its fields are set once `beforeAll` ran. */
export interface CrashFixture {
  dist: { dir: string; remove(): void };
  /** The upstream's base URL. */
  base: string;
  /** Upstream requests waiting for an answer while `holding`. */
  held: http.ServerResponse[];
  holding: boolean;
  dir: string;
  /** A new PostgreSQL database when DATABASE_URL is set; PGlite in `dir` otherwise. */
  postgres?: { url: string; drop(): Promise<void> };
  /** Starts the compiled server; it is killed after the file if still running. */
  start(env: Record<string, string>): ServerProcess;
}

/**
 * The compiled server, an upstream that answers `answer` (or holds each request while `holding`),
 * a temporary folder and, on PostgreSQL, a database of its own; all cleaned up after the file.
 */
export function crashFixture(answer: string): CrashFixture {
  let upstream: http.Server | undefined;
  const started: ServerProcess[] = [];
  const fixture = {
    held: [],
    holding: false,
    start(env: Record<string, string>) {
      const server = startServerProcess(path.join(fixture.dist.dir, "server.js"), env);
      started.push(server);
      return server;
    },
  } as unknown as CrashFixture;
  beforeAll(async () => {
    fixture.dist = await buildServerForTest();
    fixture.dir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-crash-"));
    const server = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        if (fixture.holding) return void fixture.held.push(res);
        res.writeHead(200, { "content-type": "application/json" }).end(answer);
      });
    });
    upstream = server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    fixture.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (process.env.DATABASE_URL) fixture.postgres = await emptyPostgresDatabase();
  }, 600_000);
  afterAll(async () => {
    for (const server of started) if (server.child.exitCode === null) server.child.kill("SIGKILL");
    for (const res of fixture.held) res.destroy();
    upstream?.closeAllConnections();
    upstream?.close();
    await fixture.postgres?.drop();
    if (fixture.dir) fs.rmSync(fixture.dir, { recursive: true, force: true });
    fixture.dist?.remove();
  });
  return fixture;
}
