import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CONSOLE_COMPONENTS } from "../../scripts/antd-styles/extract";

/** antd's names that the stylesheet covers under another name, or that have no styles of their own. */
const COVERED_AS: Record<string, string | null> = { Row: "Grid", Col: "Grid", ConfigProvider: null };

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

describe("the console's antd stylesheet", () => {
  it("renders every component the web app imports from antd", () => {
    const imported = new Set<string>();
    for (const file of sourceFiles(path.resolve("src/web"))) {
      for (const [, names] of fs.readFileSync(file, "utf8").matchAll(/import\s*\{([^}]*)\}\s*from\s*"antd"/g)) {
        for (const name of names!.split(",").map((n) => n.trim().split(/\s+as\s+/)[0]!.trim())) {
          if (name && !name.startsWith("type ")) imported.add(name);
        }
      }
    }
    expect(imported.size).toBeGreaterThan(10);
    const missing = [...imported].filter((name) => COVERED_AS[name] !== null && !((COVERED_AS[name] ?? name) in CONSOLE_COMPONENTS));
    expect(missing, "add these to CONSOLE_COMPONENTS in scripts/antd-styles/extract.ts, or the console shows them unstyled").toEqual([]);
  });
});
