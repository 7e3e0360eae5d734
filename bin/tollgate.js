#!/usr/bin/env node
// `tollgate admin …` from an installed copy: runs the compiled CLI (dist/cli.js, made by
// `npm run build`) on the package's own Node 24 when the `node` on PATH is older.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const cli = path.join(root, "dist", "cli.js");
if (!fs.existsSync(cli)) {
  console.error(`tollgate: ${cli} is missing; run \`npm run build\` first`);
  process.exit(1);
}
const bundledNode = path.join(root, "node_modules", "node", "bin", "node");
if (Number(process.versions.node.split(".")[0]) >= 24 || !fs.existsSync(bundledNode)) {
  await import(pathToFileURL(cli).href);
} else {
  const result = spawnSync(bundledNode, [cli, ...process.argv.slice(2)], { stdio: "inherit" });
  if (result.error) {
    console.error(`tollgate: could not run ${bundledNode}: ${result.error.message}`);
    process.exit(1);
  }
  process.exit(result.status ?? 1);
}
