import fs from "node:fs/promises";
import type { Plugin } from "vite";
import { createMarkdownRenderer } from "./render.ts";

const SUFFIX = ".md?html";

/**
 * `import doc from "./page.md?html"` gives `{title, html, headings}` rendered at build time,
 * so no Markdown library ships to the browser.
 */
export function markdownHtml(): Plugin {
  const renderer = createMarkdownRenderer();
  return {
    name: "tollgate:markdown-html",
    enforce: "pre",
    async load(id) {
      if (!id.endsWith(SUFFIX)) return null;
      const file = id.slice(0, -"?html".length);
      this.addWatchFile(file);
      return `export default ${JSON.stringify(renderer.render(await fs.readFile(file, "utf8")))};`;
    },
  };
}
