import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";

const STATIC_IMPORT = /(?:^|[;}\s])(?:import|export)\s*(?:[\w*{}\s,$]+from\s*)?["'](\.{1,2}\/[^"']+\.js|\/assets\/[^"']+\.js)["']/g;

/**
 * The JavaScript a prerendered page loads before any interaction: its module scripts and
 * modulepreloads, plus every chunk those import statically (dynamic imports are not followed).
 */
export function initialJavaScript(clientDir: string, htmlFile: string): { files: string[]; gzipBytes: number } {
  const html = fs.readFileSync(path.join(clientDir, htmlFile), "utf8");
  const queue = new Set<string>();
  for (const m of html.matchAll(/<(?:script|link)[^>]+(?:src|href)="(\/assets\/[^"]+\.js)"/g)) queue.add(m[1]!);
  // The inline module script imports the route modules and, at once, the client entry.
  for (const m of html.matchAll(/(?:import|from)\s*\(?\s*["'](\/assets\/[^"']+\.js)["']/g)) queue.add(m[1]!);
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
