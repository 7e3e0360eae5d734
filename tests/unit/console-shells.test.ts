import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { antdStylesheets, consoleFrame, routeModulesFor, userInfoModules } from "../../scripts/console-shells";
import { CONSOLE_PAGES } from "../../src/shared/site-routes";
import { EARLY_INPUT_GLOBAL } from "../../src/web/lib/early-input";

const clientDir = path.resolve(process.env.BUILD_DIR ?? "build", "client");

function requireBuild(): void {
  if (!fs.existsSync(path.join(clientDir, "__spa-fallback.html"))) {
    throw new Error(`No web build in ${clientDir}: run \`npm run build\` (or set BUILD_DIR to the build to check) first.`);
  }
}

/** What a page's loader preloads once painted (scripts/public-pages.ts). */
const loaderPreloads = (html: string) => JSON.parse(/var p=(\["\/assets\/[^\]]+\])/.exec(html)?.[1] ?? "[]") as string[];
const htmlPreloads = (html: string) => [...html.matchAll(/<link rel="modulepreload" href="([^"]+)"\/>/g)].map((m) => m[1]!);

describe("the console pages' HTML", () => {
  it("asks, once painted, for the fallback's modules, the page's route modules and imports, and antd's stylesheet", () => {
    requireBuild();
    const fallback = fs.readFileSync(path.join(clientDir, "__spa-fallback.html"), "utf8");
    const manifestFile = fs.readdirSync(path.join(clientDir, "assets")).find((f) => /^manifest-[\w-]+\.js$/.test(f))!;
    const manifest = JSON.parse(
      fs.readFileSync(path.join(clientDir, "assets", manifestFile), "utf8").replace(/^window\.__reactRouterManifest=/, "").replace(/;\s*$/, ""),
    ) as { routes: Parameters<typeof routeModulesFor>[0] };
    const stylesheets = antdStylesheets(clientDir);
    expect(stylesheets.length).toBeGreaterThan(0);
    for (const page of CONSOLE_PAGES) {
      const html = fs.readFileSync(path.join(clientDir, page.slice(1), "index.html"), "utf8");
      // No request for a script or antd's stylesheet before the first paint (decision 042).
      expect(html, page).not.toMatch(/<link[^>]+rel="(modulepreload|preload)"/);
      expect(html, page).not.toMatch(/<script[^>]+(src=|type="module")/);
      expect(html, page).toContain('l.getEntriesByName("first-contentful-paint")');
      const { module } = manifest.routes[`routes${page}`]!;
      const layout = manifest.routes["layouts/default"]!.module;
      const preloads = loaderPreloads(html);
      // The fallback's own first (the app's start), then antd's stylesheet in cascade order, then the page's.
      expect(preloads.slice(0, htmlPreloads(fallback).length), page).toEqual(htmlPreloads(fallback));
      expect(preloads, page).toEqual(expect.arrayContaining([module, layout, ...userInfoModules(clientDir)]));
      expect(preloads.filter((href) => href.endsWith(".css")), page).toEqual(stylesheets);
      expect(fallback).not.toContain(stylesheets[0]);
      for (const other of CONSOLE_PAGES.filter((p) => p !== page)) {
        expect(preloads, `${page} does not preload ${other}`).not.toContain(manifest.routes[`routes${other}`]!.module);
      }
      // Otherwise the fallback with the page's frame under the site's bar; no input kept, nothing on the frame takes any.
      expect(html).toContain(`</header>${consoleFrame(page)}`);
      expect(html).not.toContain(EARLY_INPUT_GLOBAL);
      const rest = (doc: string) => doc.replace(/<link rel="modulepreload" href="[^"]+"\/>/g, "").replace(/<script( type="module" async="")?>(?!window\.__reactRouterContext)[\s\S]*?<\/script>/g, "");
      expect(rest(html).replace(consoleFrame(page).replace(/<script>.*?<\/script>/, ""), "")).toBe(rest(fallback));
    }
  });

  it("frames each page with its title, and its intro where the page has one, in both languages", () => {
    const apply = consoleFrame("/console/apply");
    expect(apply).toContain('<h2><span lang="en">Apply for access</span><span lang="zh-CN">');
    expect(apply).toContain('<p lang="en">Some tools need approval before your API keys may call them.');
    expect(consoleFrame("/console/api-keys")).toContain('<p lang="en">Keys authenticate your calls to the tools.');
    // The two money pages say plainly which way the money goes (issue 42).
    expect(consoleFrame("/console/billing-details")).toContain('<p lang="en">Every charged call: what it cost and which key made it, and every package bought from your balance.');
    expect(consoleFrame("/console/billing-details")).toContain('<p lang="zh-CN">每一次扣费的调用：');
    expect(consoleFrame("/console/info")).toContain('<p lang="en">Your balance and how long it lasts, your calls over the last 30 days,');
    expect(consoleFrame("/console/charge-details")).toContain('<span lang="en">Charge details</span>');
    expect(consoleFrame("/console/charge-details")).toContain('<p lang="en">Top-ups and redeemed codes: every amount added to your balance.');
    expect(consoleFrame("/console/charge-details")).toContain('<p lang="zh-CN">充值与兑换码：');
  });

  it("routeModulesFor refuses a path the router does not know", () => {
    expect(() => routeModulesFor({ root: { id: "root", module: "/assets/root.js" } }, "/console/nope")).toThrow(/no route for \/console\/nope/);
  });
});
