/**
 * A production install (docs/deployment.md §1, building on another machine): the built package's
 * files copied to a folder of their own, `npm ci --omit=dev` there, and the server started as the
 * systemd unit starts it, on the copy's own Node 24, on PGlite. It must start and serve without a
 * single dev dependency. Needs a build (`npm run build`, as `npm test` runs first).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { readyUrl, ROOT, startServerProcess, type ServerProcess } from "../../src/server/testing/server-process";

/** What the deployment guide copies to the machine that runs the server. */
const SHIPPED = ["dist", "build", "drizzle", "config", "bin", "scripts/apply-patches.mjs", "package.json", "package-lock.json", ".npmrc"];
/** npm ci from a warm cache still unpacks every production dependency: minutes on a loaded machine. */
const SLOW = 600_000;

let install: string;
let server: ServerProcess | undefined;

function run(command: string, args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.once("exit", (code) => resolve({ code, output }));
  });
}

beforeAll(async () => {
  for (const built of ["dist/server.js", "build/client/index.html"]) {
    if (!fs.existsSync(path.join(ROOT, built))) throw new Error(`No ${built}: run \`npm run build\` first.`);
  }
  install = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-install-"));
  for (const name of SHIPPED) fs.cpSync(path.join(ROOT, name), path.join(install, name), { recursive: true });
  const ci = await run("npm", ["ci", "--omit=dev", "--no-audit", "--no-fund"], install);
  if (ci.code !== 0) throw new Error(`npm ci --omit=dev failed:\n${ci.output}`);
}, SLOW);
afterAll(async () => {
  if (server && server.child.exitCode === null) {
    server.child.kill("SIGTERM");
    await server.exited;
  }
  if (install) fs.rmSync(install, { recursive: true, force: true });
});

it("installs without dev dependencies (and so without patching any: patch-package is one), then starts on PGlite and serves the API and the web app", async () => {
  // No build or test tooling came with it.
  for (const dev of ["vitest", "esbuild", "tsx", "eslint", "patch-package"]) expect(fs.existsSync(path.join(install, "node_modules", dev))).toBe(false);
  const node = path.join(install, "node_modules", ".bin", "node");
  expect(fs.existsSync(node)).toBe(true);

  const dataDir = path.join(install, "data");
  server = startServerProcess(path.join(install, "dist", "server.js"), {
    DATA_DIR: dataDir,
    DATABASE_URL: "",
    WEB_ROOT: path.join(install, "build", "client"),
    NODE_ENV: "production",
    SESSION_SECRET: "production-install-test-secret-0123456789",
    PUBLIC_URL: "http://127.0.0.1",
  }, { node, cwd: install });
  const url = await readyUrl(server);

  const health = await fetch(`${url}/api/v1/health`);
  expect(health.status).toBe(200);
  expect(await health.json()).toEqual({ status: "ok", database: { reachable: true, kind: "pglite" } });
  const home = await fetch(`${url}/`);
  expect(home.status).toBe(200);
  expect(home.headers.get("content-type")).toMatch(/^text\/html/);
  expect(await home.text()).toMatch(/<html/i);
  expect(fs.existsSync(dataDir)).toBe(true);

  server.child.kill("SIGTERM");
  expect(await server.exited).toEqual({ code: 0, signal: null });
}, SLOW);
