import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { antdStylesheetPreloads, consoleFrame, routeModulesFor, userInfoModules } from "../../scripts/console-shells";
import { CONSOLE_PAGES } from "../../src/shared/site-routes";

const clientDir = path.resolve(process.env.BUILD_DIR ?? "build", "client");

function requireBuild(): void {
  if (!fs.existsSync(path.join(clientDir, "__spa-fallback.html"))) {
    throw new Error(`No web build in ${clientDir}: run \`npm run build\` (or set BUILD_DIR to the build to check) first.`);
  }
}

const preloads = (html: string) => [...html.matchAll(/<link rel="modulepreload" href="([^"]+)"/g)].map((m) => m[1]);

describe("the console pages' HTML", () => {
  it("preloads each page's route modules and their imports, on top of the fallback's", () => {
    requireBuild();
    const fallback = fs.readFileSync(path.join(clientDir, "__spa-fallback.html"), "utf8");
    const manifestFile = fs.readdirSync(path.join(clientDir, "assets")).find((f) => /^manifest-[\w-]+\.js$/.test(f))!;
    const manifest = JSON.parse(
      fs.readFileSync(path.join(clientDir, "assets", manifestFile), "utf8").replace(/^window\.__reactRouterManifest=/, "").replace(/;\s*$/, ""),
    ) as { routes: Parameters<typeof routeModulesFor>[0] };
    for (const page of CONSOLE_PAGES) {
      const html = fs.readFileSync(path.join(clientDir, page.slice(1), "index.html"), "utf8");
      const routeId = `routes${page}`;
      const { module } = manifest.routes[routeId]!;
      const layout = manifest.routes["layouts/default"]!.module;
      expect(preloads(html), page).toEqual(expect.arrayContaining([module, layout, ...userInfoModules(clientDir), ...preloads(fallback)]));
      // Otherwise the same page: the fallback's scripts, the page's frame under the site's bar, and nothing of another console page.
      // The first paint needs none of the page's modules: they do not compete with the stylesheet.
      expect(html, page).toContain(`<link rel="modulepreload" href="${module}" fetchpriority="low"/>`);
      // antd's stylesheet, which the console layout applies before it renders (decision 034), and only on console pages.
      const stylesheet = antdStylesheetPreloads(clientDir);
      expect(stylesheet, page).toMatch(/^(<link rel="preload" as="style" href="\/assets\/antd-console-\d+-[\w-]+\.css" fetchpriority="low"\/>)+$/);
      expect(html, page).toContain(stylesheet);
      expect(fallback).not.toContain(stylesheet);
      const frame = consoleFrame(page);
      expect(html).toContain(`</header>${frame}`);
      expect(html.replace(/<link rel="modulepreload" href="[^"]+"( fetchpriority="low")?\/>/g, "").replace(frame, "").replace(stylesheet, "")).toBe(fallback.replace(/<link rel="modulepreload" href="[^"]+"\/>/g, ""));
      for (const other of CONSOLE_PAGES.filter((p) => p !== page)) {
        expect(preloads(html), `${page} does not preload ${other}`).not.toContain(manifest.routes[`routes${other}`]!.module);
      }
    }
  });

  it("frames each page with its title, and its intro where the page has one, in both languages", () => {
    const apply = consoleFrame("/console/apply");
    expect(apply).toContain('<h2><span lang="en">Apply for access</span><span lang="zh-CN">');
    expect(apply).toContain('<p lang="en">Some tools need approval before your API keys may call them.');
    expect(consoleFrame("/console/api-keys")).toContain('<p lang="en">Keys authenticate your calls to the tools.');
    expect(consoleFrame("/console/billing-details")).toContain('<p lang="en">Every successful API call, what it cost and which key made it.');
    expect(consoleFrame("/console/info")).toContain('<p lang="en">Your balance and how long it lasts, your calls over the last 30 days,');
    expect(consoleFrame("/console/charge-details")).toContain('<span lang="en">Charge details</span>');
  });

  it("routeModulesFor refuses a path the router does not know", () => {
    expect(() => routeModulesFor({ root: { id: "root", module: "/assets/root.js" } }, "/console/nope")).toThrow(/no route for \/console\/nope/);
  });
});
