import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { deferAppScripts, parseRouteModulesScript, publicPageFiles } from "../../scripts/public-pages";
import { PRERENDERED_PATHS } from "../../src/shared/site-routes";
import { EARLY_INPUT_GLOBAL } from "../../src/web/lib/early-input";

const clientDir = path.resolve(process.env.BUILD_DIR ?? "build", "client");

function requireBuild(): void {
  if (!fs.existsSync(path.join(clientDir, "index.html"))) {
    throw new Error(`No web build in ${clientDir}: run \`npm run build\` (or set BUILD_DIR to the build to check) first.`);
  }
}

interface ManifestRoute {
  id: string;
  parentId?: string;
  path?: string;
  index?: boolean;
  module: string;
  imports?: string[];
}

function manifest(): { entry: { module: string; imports: string[] }; routes: Record<string, ManifestRoute> } {
  const file = fs.readdirSync(path.join(clientDir, "assets")).find((f) => /^manifest-[\w-]+\.js$/.test(f))!;
  return JSON.parse(fs.readFileSync(path.join(clientDir, "assets", file), "utf8").replace(/^window\.__reactRouterManifest=/, "").replace(/;\s*$/, "")) as ReturnType<typeof manifest>;
}

/** The routes React Router renders for a prerendered path, root first. */
function routeChain(routes: Record<string, ManifestRoute>, pathname: string): ManifestRoute[] {
  let route = Object.values(routes).find((r) => (pathname === "/" ? r.index === true && r.parentId === "layouts/home" : `/${r.path}` === pathname));
  const chain: ManifestRoute[] = [];
  while (route) {
    chain.unshift(route);
    route = route.parentId ? routes[route.parentId] : undefined;
  }
  return chain;
}

const ROUTER_SCRIPT = `import "/assets/manifest-1.js";
import * as route0 from "/assets/root-1.js";
import * as route1 from "/assets/home-1.js";
import * as route2 from "/assets/home-2.js";
  
  window.__reactRouterRouteModules = {"root":route0,"layouts/home":route1,"routes/home":route2};

import("/assets/entry.client-1.js");`;

describe("the public pages' HTML (decision 040)", () => {
  it("asks for no script before the first paint: no modulepreload, no script source, no module script", () => {
    requireBuild();
    for (const file of publicPageFiles(clientDir)) {
      const html = fs.readFileSync(file, "utf8");
      expect(html, file).not.toMatch(/<link[^>]+rel="modulepreload"/);
      expect(html, file).not.toMatch(/<script[^>]+src=/);
      expect(html, file).not.toMatch(/<script[^>]+type="module"/);
      // The stylesheet is still the one request the first paint waits for.
      expect(html, file).toMatch(/<link rel="stylesheet" href="\/assets\/[\w-]+\.css#?"\/>/);
    }
  });

  it("loads, once painted, the modules React Router's manifest lists for the page, and keeps early input", () => {
    requireBuild();
    const { entry, routes } = manifest();
    expect(publicPageFiles(clientDir)).toHaveLength(PRERENDERED_PATHS.length);
    for (const [i, pathname] of PRERENDERED_PATHS.entries()) {
      const html = fs.readFileSync(publicPageFiles(clientDir)[i]!, "utf8");
      const chain = routeChain(routes, pathname);
      expect(chain.map((r) => r.id)[0], pathname).toBe("root");
      expect(chain.length, pathname).toBe(3);
      // What it imports: every route module of the page, then the client entry, which hydrates.
      const modules = chain.map((r) => r.module);
      for (const module of [...modules, entry.module]) expect(html, `${pathname} imports ${module}`).toContain(`import(${JSON.stringify(module)})`);
      expect(html, pathname).toContain(`w.__reactRouterRouteModules={${chain.map((r, n) => `${JSON.stringify(r.id)}:r[${n}]`).join(",")}}`);
      // What it preloads: those and their static imports, as React Router's links did.
      const preloads = JSON.parse(/var p=(\["\/assets\/[^\]]+\])/.exec(html)?.[1] ?? "[]") as string[];
      expect(preloads, pathname).toEqual(expect.arrayContaining([...modules, entry.module, ...entry.imports, ...chain.flatMap((r) => r.imports ?? [])]));
      // Not before the first contentful paint; the kept input is replayed by the app.
      expect(html, pathname).toContain('l.getEntriesByName("first-contentful-paint")');
      expect(html, pathname).toContain(`w.${EARLY_INPUT_GLOBAL}=function(){`);
    }
  });

  it("reads React Router's module script, and rewrites a page with it", () => {
    expect(parseRouteModulesScript(ROUTER_SCRIPT)).toEqual({
      sideEffects: ["/assets/manifest-1.js"],
      routes: [
        ["root", "/assets/root-1.js"],
        ["layouts/home", "/assets/home-1.js"],
        ["routes/home", "/assets/home-2.js"],
      ],
      entry: "/assets/entry.client-1.js",
    });
    const page = `<html><head><link rel="modulepreload" href="/assets/manifest-1.js"/><link rel="modulepreload" href="/assets/root-1.js"/><link rel="stylesheet" href="/assets/a.css"/></head><body><main>Hi</main><script type="module" async="">${ROUTER_SCRIPT}</script></body></html>`;
    const rewritten = deferAppScripts(page);
    expect(rewritten).toMatch(/^<html><head><link rel="stylesheet" href="\/assets\/a.css"\/><\/head><body><main>Hi<\/main><script>\(function\(w,d\)\{.*\}\)\(window,document\)<\/script><\/body><\/html>$/);
    expect(rewritten).toContain('var p=["/assets/manifest-1.js","/assets/root-1.js"],i=0,');
  });

  it("refuses a module script of another shape, so a changed React Router fails the build", () => {
    expect(() => parseRouteModulesScript(`${ROUTER_SCRIPT}\nimport "/@vite/client";`)).toThrow(/a line this build does not know/);
    expect(() => parseRouteModulesScript('import "/assets/manifest-1.js";')).toThrow(/not the expected shape/);
    expect(() => deferAppScripts("<html><head></head><body></body></html>")).toThrow(/no modulepreload/);
  });
});
