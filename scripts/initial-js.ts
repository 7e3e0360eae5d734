import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";

const STATIC_IMPORT = /(?:^|[;}\s])(?:import|export)\s*(?:[\w*{}\s,$]+from\s*)?["'](\.{1,2}\/[^"']+\.js|\/assets\/[^"']+\.js)["']/g;

/**
 * The JavaScript a prerendered page loads before any interaction: every module its HTML names
 * (scripts, modulepreloads, the modules its inline scripts import), plus every chunk those import
 * statically (dynamic imports inside the chunks are not followed).
 */
export function initialJavaScript(clientDir: string, htmlFile: string): { files: string[]; gzipBytes: number } {
  const html = fs.readFileSync(path.join(clientDir, htmlFile), "utf8");
  const queue = new Set<string>();
  // Script sources, modulepreloads, and every module an inline script names: React Router's module
  // script imports the route modules and the client entry; the public pages' loader
  // (scripts/public-pages.ts) preloads and imports the same after the first paint.
  for (const m of html.matchAll(/["'](\/assets\/[^"']+\.js)["']/g)) queue.add(m[1]!);
  const seen = new Set<string>();
  let gzipBytes = 0;
  for (const file of queue) {
    if (seen.has(file)) continue;
    seen.add(file);
    const body = fs.readFileSync(path.join(clientDir, file));
    gzipBytes += zlib.gzipSync(body, { level: 9 }).length;
    for (const m of body.toString("utf8").matchAll(STATIC_IMPORT)) {
      const target = m[1]!.startsWith("/") ? m[1]! : path.posix.join(path.posix.dirname(file), m[1]!);
      queue.add(target);
    }
  }
  return { files: [...seen], gzipBytes };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = initialJavaScript(path.resolve(process.env.BUILD_DIR ?? "build", "client"), process.argv[2] ?? "index.html");
  console.log(result.files.join("\n"));
  console.log(`initial JavaScript: ${(result.gzipBytes / 1000).toFixed(1)} kB gzip`);
}
