import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildServerForTest, PROJECT_NODE } from "../testing/server-process";
import { createTestApp, type TestApp } from "../testing/test-app";
import { tempDataDir } from "../testing/temp-dir";
import { startControlSocket } from "./control-socket";

let t: TestApp;
let dataDir: string;
let stop: () => Promise<void>;
/** The compiled CLI, which the `tollgate` bin runs. */
let dist: { dir: string; remove(): void };

beforeAll(async () => {
  dist = await buildServerForTest();
  dataDir = tempDataDir("cli-drain-");
  t = await createTestApp({ DATA_DIR: dataDir });
  stop = await startControlSocket(t.app);
});
afterAll(async () => {
  await stop();
  await t.close();
  dist.remove();
});

/**
 * Runs `tollgate admin …` as a separate process through the running server, its stdout a socket
 * (what `spawn` gives, and what ssh gives a remote command) that is not read until 1.5 s after the
 * command has said it is done on stderr (`done`), or, for a command that says nothing there, 5 s
 * after it started: a slow consumer, as `| tee` or `ssh … > file` is under load.
 */
function runWithSlowStdout(args: string[], done?: RegExp): Promise<{ exit: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(PROJECT_NODE, [path.join(dist.dir, "cli.js"), "admin", ...args], {
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "", LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let exit: number | null = null;
    child.stdout.pause();
    if (!done) setTimeout(() => child.stdout.resume(), 5000);
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      // Start reading only once the command has finished writing; by then it may be exiting.
      if (done?.test(stderr)) setTimeout(() => child.stdout.resume(), 1500);
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      exit = code;
      child.stdout.resume();
    });
    child.on("close", () => resolve({ exit, stdout, stderr }));
  });
}

describe("the CLI's output", () => {
  it("reaches a slow reader in full before the command exits", async () => {
    const { exit, stdout, stderr } = await runWithSlowStdout(["codes", "create", "--amount", "1", "--count", "10000"], /created \d+ codes/);
    expect(stderr).toContain("created 10000 codes");
    expect(exit).toBe(0);
    const codes = stdout.split("\n").filter(Boolean);
    expect(codes).toHaveLength(10000);
    expect(new Set(codes).size).toBe(10000);
  }, 120_000);

  it("gives a slow reader a whole JSON document of 10,000 records", async () => {
    const { exit, stdout } = await runWithSlowStdout(["codes", "list", "--limit", "10000", "--json"]);
    expect(exit).toBe(0);
    const listed: { state: string; amount: string }[] = JSON.parse(stdout);
    expect(listed).toHaveLength(10000);
    expect(listed.every((code) => code.state === "unused" && code.amount === "1.00")).toBe(true);
  }, 120_000);
});
