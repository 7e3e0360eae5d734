/**
 * `virtual:antd-console-css`: the URLs of the console's antd stylesheet (extract.ts), written as
 * hashed assets of the client build, in cascade order; null in development, where antd generates
 * its styles at run time as before. The sheet is cut into parts of at most PART_BYTES (decision
 * 039): the browser parses each part in a task of its own, none long enough to block input, where
 * the whole sheet was one task of ~200 ms on Lighthouse's throttled phone.
 * `virtual:antd-console-token`: the theme's and the components' tokens as antd derives them
 * (extract.ts, `consoleAntdSeed`; decision 041), from the same run; null in development.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import path from "node:path";
import type { Plugin } from "vite";
import type { AntdCacheSeed } from "../../src/web/lib/antd-token-seed";
import { splitStylesheet } from "./split.ts";

const ID = "virtual:antd-console-css";
const RESOLVED = `\0${ID}`;
const TOKEN_ID = "virtual:antd-console-token";
const TOKEN_RESOLVED = `\0${TOKEN_ID}`;
/** A part's file name: `antd-console-<index>-<hash>.css`, its index its place in the cascade. */
export const ANTD_CONSOLE_CSS = /^antd-console-(\d+)-[\w-]+\.css$/;
export const PART_BYTES = 64 * 1024;

let generated: { parts: { css: string; fileName: string }[]; seed: AntdCacheSeed } | undefined;

function generate(root: string): { parts: { css: string; fileName: string }[]; seed: AntdCacheSeed } {
  if (!generated) {
    // In a process of its own: antd's class hash depends on NODE_ENV when its modules load.
    const out = execFileSync(path.join(root, "node_modules", ".bin", "tsx"), [path.join(root, "scripts", "antd-styles", "extract.ts")], {
      cwd: root,
      env: { ...process.env, NODE_ENV: "production" },
      encoding: "utf8",
      maxBuffer: 16 * 1024 * 1024,
      stdio: ["ignore", "pipe", "inherit"],
    });
    const { css, seed } = JSON.parse(out) as { css: string; seed: AntdCacheSeed };
    const parts = splitStylesheet(css, PART_BYTES).map((part, index) => {
      const hash = createHash("sha256").update(part).digest("base64url").slice(0, 8);
      return { css: part, fileName: `assets/antd-console-${index}-${hash}.css` };
    });
    generated = { parts, seed };
  }
  return generated;
}

export function antdConsoleCss(): Plugin {
  let root = process.cwd();
  let serve = false;
  return {
    name: "tollgate:antd-console-css",
    configResolved(config) {
      root = config.root;
      serve = config.command === "serve";
    },
    resolveId(id) {
      return id === ID ? RESOLVED : id === TOKEN_ID ? TOKEN_RESOLVED : null;
    },
    load(id) {
      if (id !== RESOLVED && id !== TOKEN_RESOLVED) return null;
      if (serve) return "export default null;";
      // JSON.parse of a string literal: V8 parses JSON faster than the same object as JavaScript.
      if (id === TOKEN_RESOLVED) return `export default JSON.parse(${JSON.stringify(JSON.stringify(generate(root).seed))});`;
      const { parts } = generate(root);
      if (this.environment.name === "client") for (const { css, fileName } of parts) this.emitFile({ type: "asset", fileName, source: css });
      return `export default ${JSON.stringify(parts.map(({ fileName }) => `/${fileName}`))};`;
    },
  };
}
