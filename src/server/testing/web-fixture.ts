import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { CARD_SLOTS } from "#shared/catalog-card";
import { slot } from "#shared/page-slots";

export const FIXTURE_INLINE_SCRIPT = 'window.__fixture = "inline";';

/** A small stand-in for build/client, so server tests do not depend on a web build. */
export function createWebFixture(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-web-"));
  const page = (title: string, content = "") =>
    `<!DOCTYPE html><html><head><title>${title}</title></head><body><div>${title}</div>${content}<script>${FIXTURE_INLINE_SCRIPT}</script><script type="module" src="/assets/app-abc123.js"></script></body></html>`;
  // The landing page as the build prerenders its catalog: one card of slots, which the server writes once per tool.
  const catalog = `<ul>${`<li id="tool-${slot("id")}">${Object.keys(CARD_SLOTS)
    .map((field) => slot(field))
    .join(" ")}</li>`}</ul>`;
  fs.mkdirSync(path.join(root, "assets"));
  fs.mkdirSync(path.join(root, "privacy"));
  fs.mkdirSync(path.join(root, "docs"));
  fs.mkdirSync(path.join(root, "builds"));
  fs.writeFileSync(path.join(root, "index.html"), page("home", catalog));
  fs.writeFileSync(path.join(root, "__spa-fallback.html"), page("spa"));
  fs.writeFileSync(path.join(root, "privacy", "index.html"), page("privacy"));
  fs.writeFileSync(path.join(root, "docs", "a.html"), "<!DOCTYPE html><html><head></head><body>doc a</body></html>");
  fs.writeFileSync(path.join(root, "assets", "app-abc123.js"), "console.log('app');");
  fs.writeFileSync(path.join(root, "builds", "latest.json"), JSON.stringify({ id: "b1", timestamp: 1 }));
  return root;
}
