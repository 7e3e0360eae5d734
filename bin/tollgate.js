#!/usr/bin/env node
// `tollgate admin …` from an installed copy: runs the TypeScript CLI through tsx.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const result = spawnSync(process.execPath, ["--import", "tsx", path.join(root, "src/server/cli/index.ts"), ...process.argv.slice(2)], {
  stdio: "inherit",
});
process.exit(result.status ?? 1);
