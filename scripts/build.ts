/**
 * Builds the web app with one build id, writes builds/latest.json and builds/meta/{id}.json
 * (SPEC.md §7), and precompresses text assets so the server sends them without compressing per request.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { stripVTControlCharacters } from "node:util";
import zlib from "node:zlib";
import { buildServer } from "./build-server";
import { writeConsoleShells } from "./console-shells";
import { buildDocs } from "./docs/build-docs";
import { writePublicPages } from "./public-pages";

const root = path.resolve(import.meta.dirname, "..");
const clientDir = path.resolve(root, process.env.BUILD_DIR ?? "build", "client");
const buildId = process.env.BUILD_ID ?? `${Date.now().toString(36)}-${randomBytes(4).toString("hex")}`;

/**
 * React Router 7 loads its own config through a Vite server it starts with `envFile: false` and no
 * plugins, which Vite 8 reports as deprecated at every start: nothing a build can change (React
 * Router 8 passes `envDir: false`, remix-run/react-router#15229; vite.config.ts renames it where a
 * plugin can), so that one line is left out of what the build prints.
 */
const UPSTREAM_DEPRECATION = "The `envFile` option is deprecated, please use `envDir: false` instead.";

function runReactRouterBuild(): Promise<void> {
  const child = spawn(path.join(root, "node_modules", ".bin", "react-router"), ["build"], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, BUILD_ID: buildId, NODE_ENV: "production" },
  });
  for (const [from, to] of [[child.stdout, process.stdout], [child.stderr, process.stderr]] as const) {
    readline.createInterface({ input: from, crlfDelay: Infinity }).on("line", (line) => {
      if (stripVTControlCharacters(line).trim() !== UPSTREAM_DEPRECATION) to.write(`${line}\n`);
    });
  }
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`react-router build exited with ${code}`))));
  });
}

await runReactRouterBuild();

writeConsoleShells(clientDir);
writePublicPages(clientDir);

await buildServer(root);
console.log("server and CLI compiled to dist/");

const docs = await buildDocs({ root, clientDir });
console.log(`docs: templates written to ${path.relative(root, docs.file)}`);

const meta = { id: buildId, timestamp: Date.now() };
fs.mkdirSync(path.join(clientDir, "builds", "meta"), { recursive: true });
fs.writeFileSync(path.join(clientDir, "builds", "latest.json"), JSON.stringify(meta));
fs.writeFileSync(path.join(clientDir, "builds", "meta", `${buildId}.json`), JSON.stringify(meta));

const COMPRESSIBLE = /\.(js|css|html|json|svg|txt|map)$/;
function compressTree(dir: string): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) compressTree(full);
    else if (COMPRESSIBLE.test(entry.name) && !entry.name.endsWith(".map")) {
      const body = fs.readFileSync(full);
      if (body.length < 1024) continue;
      fs.writeFileSync(`${full}.gz`, zlib.gzipSync(body, { level: 9 }));
      fs.writeFileSync(`${full}.br`, zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }));
    }
  }
}
compressTree(clientDir);
console.log(`build ${buildId} written to ${path.relative(root, clientDir)}`);
