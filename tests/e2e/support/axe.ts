import fs from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "@playwright/test";
import type { AxeResults } from "axe-core";

/** axe-core's WCAG A and AA rules, the engine Lighthouse's accessibility score is made of. */
const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/**
 * The violations axe finds on the page as it is now (or in the elements `within` selects), one line
 * per element. Injects axe as a script: a spec that calls this needs `test.use({ bypassCSP: true })`
 * (the pages allow scripts by hash only).
 */
export async function axeViolations(page: Page, within?: string): Promise<string[]> {
  // Colours are read as they end up, not halfway through a transition (antd fades its menu in).
  await page.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished.catch(() => {}))));
  await page.addScriptTag({ content: AXE_SOURCE });
  const results = await page.evaluate(
    (selector) =>
      (window as unknown as { axe: { run: (context: Document | string, options: object) => Promise<AxeResults> } }).axe.run(selector ?? document, {
        runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
      }),
    within,
  );
  return results.violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(" ")}: ${n.failureSummary?.split("\n").slice(1).join(" ")}`));
}
