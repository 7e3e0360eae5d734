/**
 * `virtual:antd-console-css`: the URL of the console's antd stylesheet (extract.ts), written as a
 * hashed asset of the client build; null in development, where antd generates its styles at run
 * time as before.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import path from "node:path";
import type { Plugin } from "vite";

const ID = "virtual:antd-console-css";
const RESOLVED = `\0${ID}`;
export const ANTD_CONSOLE_CSS = /^antd-console-[\w-]+\.css$/;

let generated: { css: string; fileName: string } | undefined;

function generate(root: string): { css: string; fileName: string } {
  if (!generated) {
    // In a process of its own: antd's class hash depends on NODE_ENV when its modules load.
    const css = execFileSync(path.join(root, "node_modules", ".bin", "tsx"), [path.join(root, "scripts", "antd-styles", "extract.ts")], {
      cwd: root,
      env: { ...process.env, NODE_ENV: "production" },
      encoding: "utf8",
      maxBuffer: 16 * 1024 * 1024,
      stdio: ["ignore", "pipe", "inherit"],
    });
    const hash = createHash("sha256").update(css).digest("base64url").slice(0, 8);
    generated = { css, fileName: `assets/antd-console-${hash}.css` };
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
      return id === ID ? RESOLVED : null;
    },
    load(id) {
      if (id !== RESOLVED) return null;
      if (serve) return "export default null;";
      const { css, fileName } = generate(root);
      if (this.environment.name === "client") this.emitFile({ type: "asset", fileName, source: css });
      return `export default ${JSON.stringify(`/${fileName}`)};`;
    },
  };
}
