import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { EMBEDDED_LOCK_FILE, lockEmbeddedDatabase } from "./embedded-lock";

const folders: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-lock-"));
  folders.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of folders.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** Another process that takes the folder with the same function and holds it until killed. */
async function holderProcess(dataDir: string) {
  const code = `import { lockEmbeddedDatabase } from ${JSON.stringify(path.resolve("src/server/db/embedded-lock.ts"))};
lockEmbeddedDatabase(${JSON.stringify(dataDir)}); console.log("held"); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout.once("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`the holder exited (${code}) before holding the folder`)));
  });
  return { pid: child.pid!, kill: () => (child.kill("SIGKILL"), exited) };
}

it("refuses a folder another process has open, naming it, and takes it at once when that process was killed", async () => {
  const dataDir = tempDir();
  const holder = await holderProcess(dataDir);
  try {
    expect(() => lockEmbeddedDatabase(dataDir)).toThrow(
      `DATA_DIR ${dataDir} is in use: process ${holder.pid} has its embedded database open (a Tollgate server, starting or running, or an admin command), and PGlite belongs to one process. Stop that process first, or give this one a DATA_DIR of its own (or a DATABASE_URL).`,
    );
  } finally {
    // A kill -9 leaves its file behind; the next process does not wait for it to go stale.
    await holder.kill();
  }
  expect(fs.readFileSync(path.join(dataDir, EMBEDDED_LOCK_FILE), "utf8").trim()).toBe(String(holder.pid));
  const release = lockEmbeddedDatabase(dataDir);
  expect(fs.readFileSync(path.join(dataDir, EMBEDDED_LOCK_FILE), "utf8").trim()).toBe(String(process.pid));
  release();
  expect(fs.readdirSync(dataDir)).toEqual([]);
}, 60_000);

it("refuses a second open from the same process, and takes a file naming this process's id that an earlier one left (a container's process 1)", () => {
  const dataDir = tempDir();
  const release = lockEmbeddedDatabase(dataDir);
  expect(() => lockEmbeddedDatabase(dataDir)).toThrow(`is in use: process ${process.pid} has its embedded database open`);
  release();
  expect(fs.existsSync(path.join(dataDir, EMBEDDED_LOCK_FILE))).toBe(false);

  fs.writeFileSync(path.join(dataDir, EMBEDDED_LOCK_FILE), `${process.pid}\n`);
  const again = lockEmbeddedDatabase(dataDir);
  again();
  // An empty or unreadable file is no holder either.
  fs.writeFileSync(path.join(dataDir, EMBEDDED_LOCK_FILE), "");
  lockEmbeddedDatabase(dataDir)();
  expect(fs.readdirSync(dataDir)).toEqual([]);
});
