import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { tempDataDir } from "../testing/temp-dir";
import { freePort } from "../testing/free-port";
import { buildServerForTest, PROJECT_NODE, ROOT, START_FLAGS } from "../testing/server-process";

const NOBODY = 65534;
const running: ChildProcess[] = [];
let dist: { dir: string; remove(): void };

beforeAll(async () => {
  dist = await buildServerForTest();
});
afterAll(() => dist?.remove());

afterEach(async () => {
  await Promise.all(running.splice(0).map((child) => stop(child)));
});


/** The compiled server on the embedded database, started by a shell with the given umask, as an operator would. */
async function startServer(dataDir: string, umask: string): Promise<{ child: ChildProcess; exited: Promise<number | null>; output: () => string }> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1", NODE_ENV: "development", LOG_LEVEL: "warn" };
  delete env.DATABASE_URL;
  const child = spawn("sh", ["-c", `umask ${umask} && exec "$0" "$@"`, PROJECT_NODE, ...START_FLAGS, path.join(dist.dir, "server.js")], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.push(child);
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const ready = (async () => {
    while (child.exitCode === null) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/api/v1/health`)).ok) return true;
      } catch {
        /* not listening yet */
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  await Promise.race([ready, exited]);
  return { child, exited, output: () => output };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

/** Every path under dir whose mode lets group or others in, with its mode. */
function reachableByOthers(dir: string): string[] {
  const found: string[] = [];
  const visit = (file: string) => {
    const stat = fs.lstatSync(file);
    if (stat.isSymbolicLink()) return;
    if ((stat.mode & 0o077) !== 0) found.push(`${path.relative(dir, file) || "."} ${(stat.mode & 0o777).toString(8)}`);
    if (stat.isDirectory()) for (const entry of fs.readdirSync(file)) visit(path.join(file, entry));
  };
  visit(dir);
  return found;
}

// Each case starts the real server once or twice; on a loaded machine a start can take tens of seconds.
describe("DATA_DIR is the owner's alone", { timeout: 180_000 }, () => {
  it.each(["022", "000"])("a new data folder and everything the server writes in it are owner-only under umask %s", async (umask) => {
    const dataDir = path.join(tempDataDir(), "data");
    const server = await startServer(dataDir, umask);
    expect(server.child.exitCode, server.output()).toBeNull();
    await stop(server.child);
    expect(fs.statSync(path.join(dataDir, "pglite", "global", "pg_control")).isFile()).toBe(true);
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(reachableByOthers(dataDir)).toEqual([]);
  });

  it("tightens what an older version left open before it opens the database", async () => {
    const dataDir = path.join(tempDataDir(), "data");
    const first = await startServer(dataDir, "077");
    await stop(first.child);
    // As an older version under umask 022 (or 000) left it: folders 0755/0777, files 0666.
    fs.chmodSync(dataDir, 0o777);
    fs.chmodSync(path.join(dataDir, "pglite"), 0o755);
    fs.chmodSync(path.join(dataDir, "pglite", "global", "pg_control"), 0o666);
    fs.writeFileSync(path.join(dataDir, "sms-outbox.jsonl"), "", { mode: 0o644 });
    fs.chmodSync(path.join(dataDir, "sms-outbox.jsonl"), 0o644);
    expect(reachableByOthers(dataDir).length).toBeGreaterThan(0);

    const second = await startServer(dataDir, "022");
    expect(second.child.exitCode, second.output()).toBeNull();
    expect(reachableByOthers(dataDir)).toEqual([]);
  });

  it("refuses to start, with the command that fixes it, when a database file it cannot tighten stays open", async () => {
    const dataDir = path.join(tempDataDir(), "data");
    const first = await startServer(dataDir, "077");
    await stop(first.child);
    const control = path.join(dataDir, "pglite", "global", "pg_control");
    // A file another account owns (as after a copy made as another user): this process may not chmod it.
    fs.chownSync(control, NOBODY, NOBODY);
    fs.chmodSync(control, 0o644);

    const second = await startServer(dataDir, "022");
    expect(await second.exited).toBe(1);
    expect(second.output()).toContain("can be read or written by other accounts");
    expect(second.output()).toContain(path.join("pglite", "global", "pg_control"));
    expect(second.output()).toContain(`chmod -R go-rwx "${dataDir}"`);
  });
});
