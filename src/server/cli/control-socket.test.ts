import fs from "node:fs";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../testing/test-app";
import { tempDataDir } from "../testing/temp-dir";
import { createUserWithSession } from "../testing/users";
import { controlSocketPath, runViaControlSocket, startControlSocket } from "./control-socket";

let t: TestApp;
let dataDir: string;
let stop: () => Promise<void>;

beforeAll(async () => {
  dataDir = tempDataDir("control-socket-");
  t = await createTestApp({ DATA_DIR: dataDir });
  stop = await startControlSocket(t.app);
});
afterAll(async () => {
  await stop();
  await t.close();
});

async function viaSocket(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const exit = await runViaControlSocket(dataDir, argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { exit, out, err };
}

describe("the admin control socket", () => {
  it("runs a command against the running server's database, owner-only", async () => {
    const user = await createUserWithSession(t);
    const credit = await viaSocket("admin", "credit", String(user.userId), "5", "--reason", "over the socket");
    expect(credit.exit).toBe(0);
    expect(credit.out.join("\n")).toMatch(/credited 5.00 to user/);
    const info = await t.app.inject({ url: "/api/v1/tools/user-info", headers: user.headers });
    expect(info.json().balance).toBe("5.00");
    expect(fs.statSync(controlSocketPath(dataDir)).mode & 0o777).toBe(0o600);
  });

  it("records the operator the CLI runs for, not the server's account, in the audit log", async () => {
    const out: string[] = [];
    const io = { out: (l: string) => out.push(l), err: () => {} };
    expect(await runViaControlSocket(dataDir, ["admin", "ledger", "verify"], io, { hostUser: "alice (sudo as tollgate)", host: "ops-1" })).toBe(0);
    expect(await runViaControlSocket(dataDir, ["admin", "audit", "--limit", "1", "--json"], io)).toBe(0);
    const [record] = JSON.parse(out.at(-1)!) as { command: string; hostUser: string; host: string }[];
    expect(record).toMatchObject({ command: "ledger verify", hostUser: "alice (sudo as tollgate)", host: "ops-1" });
  });

  it("passes on exit codes and errors", async () => {
    const unknown = await viaSocket("admin", "no-such-command");
    expect(unknown.exit).toBe(64);
    expect(unknown.err.join("\n")).toMatch(/unknown command: no-such-command/);
  });

  it("says so and exits 1 when the server closes the connection before the command finished", async () => {
    const dir = tempDataDir("control-socket-broken-");
    const server = net.createServer((socket) => socket.once("data", () => socket.end()));
    await new Promise<void>((resolve) => server.listen(controlSocketPath(dir), resolve));
    try {
      const err: string[] = [];
      expect(await runViaControlSocket(dir, ["admin", "ledger", "verify"], { out: () => {}, err: (l) => err.push(l) })).toBe(1);
      expect(err).toEqual(["the running server closed the admin connection before the command finished"]);
    } finally {
      server.close();
    }
  });

  it("answers null when no server listens, so the CLI opens the database itself", async () => {
    const empty = tempDataDir("control-socket-none-");
    expect(await runViaControlSocket(empty, ["admin", "ledger", "verify"], { out: () => {}, err: () => {} })).toBeNull();
    const stale = tempDataDir("control-socket-stale-");
    fs.writeFileSync(controlSocketPath(stale), "");
    expect(await runViaControlSocket(stale, ["admin", "ledger", "verify"], { out: () => {}, err: () => {} })).toBeNull();
  });
});
