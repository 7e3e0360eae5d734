/**
 * Compiles the server and the operator CLI to JavaScript in dist/ (docs/decisions/014): one esbuild
 * bundle per entry point, with the packages left to node_modules (but those of BUNDLED_PACKAGES), so
 * `npm start` and the `tollgate` bin run on plain Node with no TypeScript tooling.
 */
import fs from "node:fs";
import path from "node:path";
import { build, type Plugin } from "esbuild";
import { openPglite, PGLITE_TEMPLATE_DIR } from "../src/server/db/client";

export const SERVER_ENTRY_POINTS = {
  server: "src/server/server.ts",
  cli: "src/server/cli/index.ts",
  migrate: "src/server/cli/migrate.ts",
};

/**
 * Packages compiled into the bundle rather than imported from node_modules (docs/decisions/029).
 * For every file it loads from a package, Node 24's ES module loader parses that package's
 * package.json `exports` again. drizzle-orm's is 130 KB and the server loads ~110 of its files:
 * ~120 MB of short-lived objects and 0.1–0.5 s of CPU at every start, and V8 keeps ~45 MB of the
 * pages they took for the life of the process.
 */
export const BUNDLED_PACKAGES = ["drizzle-orm"];

const isBundled = (specifier: string) => BUNDLED_PACKAGES.some((name) => specifier === name || specifier.startsWith(`${name}/`));

/** Every other package stays external, as esbuild's `packages: "external"` would leave it. */
const externalPackages: Plugin = {
  name: "external-packages",
  setup(build) {
    build.onResolve({ filter: /^[^./#]/ }, (args) => (args.kind === "entry-point" || isBundled(args.path) ? undefined : { path: args.path, external: true }));
  },
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
    plugins: [externalPackages],
    sourcemap: true,
    logLevel: "warning",
  });
  // The PGlite worker is plain JavaScript started by URL from beside the code that opens it.
  fs.copyFileSync(path.join(root, "src/server/db/pglite-thread.js"), path.join(outdir, "pglite-thread.js"));
  await writePgliteTemplate(path.join(outdir, PGLITE_TEMPLATE_DIR));
}

/** The data folder a new PGlite database starts as a copy of: made and migrated once, here, instead of at every first start. */
async function writePgliteTemplate(dataDir: string): Promise<void> {
  const database = openPglite({ dataDir });
  try {
    await database.migrate();
  } finally {
    await database.close();
  }
}
