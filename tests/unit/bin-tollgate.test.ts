/**
 * `tollgate admin …` from an installed copy (bin/tollgate.js) on a `node` older than 24: it runs
 * the CLI on the package's own Node, and says so on stderr when that Node cannot be run (issue 19
 * §7: nothing fails silently).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, expect, it } from "vitest";

const BIN = path.resolve(import.meta.dirname, "../../bin/tollgate.js");
/** Runs the script as a Node 22 would: process.versions.node is what it reads. */
const AS_NODE_22 = `data:text/javascript,${encodeURIComponent('Object.defineProperty(process.versions, "node", { value: "22.0.0" });')}`;

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** An installed copy: bin/tollgate.js, a compiled CLI, and a bundled `node` with the given mode. */
function installedCopy(bundledNodeMode: number): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-bin-"));
  dirs.push(root);
  fs.mkdirSync(path.join(root, "bin"));
  fs.copyFileSync(BIN, path.join(root, "bin", "tollgate.js"));
  fs.writeFileSync(path.join(root, "package.json"), JSON.stringify({ type: "module" }));
  fs.mkdirSync(path.join(root, "dist"));
  fs.writeFileSync(path.join(root, "dist", "cli.js"), 'console.log("cli", process.argv.slice(2).join(" "));\n');
  const bundledNode = path.join(root, "node_modules", "node", "bin", "node");
  fs.mkdirSync(path.dirname(bundledNode), { recursive: true });
  fs.writeFileSync(bundledNode, `#!/bin/sh\nexec "${process.execPath}" "$@"\n`);
  fs.chmodSync(bundledNode, bundledNodeMode);
  return root;
}

const run = (root: string) =>
  spawnSync(process.execPath, ["--import", AS_NODE_22, path.join(root, "bin", "tollgate.js"), "admin", "list"], { encoding: "utf8" });

it("runs the CLI on the bundled Node when the node on PATH is older", () => {
  const result = run(installedCopy(0o755));
  expect(result.stderr).toBe("");
  expect(result.stdout).toBe("cli admin list\n");
  expect(result.status).toBe(0);
});

it("says why on stderr and exits non-zero when the bundled Node cannot be run", () => {
  const root = installedCopy(0o644);
  const result = run(root);
  expect(result.status).toBe(1);
  expect(result.stdout).toBe("");
  expect(result.stderr).toContain(`tollgate: could not run ${path.join(root, "node_modules", "node", "bin", "node")}`);
  expect(result.stderr).toContain("EACCES");
});
