/**
 * Compiles the server and the operator CLI to JavaScript in dist/ (docs/decisions/014): one esbuild
 * bundle per entry point, with the packages left to node_modules, so `npm start` and the
 * `tollgate` bin run on plain Node with no TypeScript tooling.
 */
import fs from "node:fs";
import path from "node:path";
import { build } from "esbuild";

export const SERVER_ENTRY_POINTS = {
  server: "src/server/server.ts",
  cli: "src/server/cli/index.ts",
  migrate: "src/server/cli/migrate.ts",
};

export async function buildServer(root: string, outdir = path.join(root, "dist")): Promise<void> {
  fs.rmSync(outdir, { recursive: true, force: true });
  await build({
    absWorkingDir: root,
    entryPoints: SERVER_ENTRY_POINTS,
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node24",
    packages: "external",
    sourcemap: true,
    logLevel: "warning",
  });
  // The PGlite worker is plain JavaScript started by URL from beside the code that opens it.
  fs.copyFileSync(path.join(root, "src/server/db/pglite-thread.js"), path.join(outdir, "pglite-thread.js"));
}
