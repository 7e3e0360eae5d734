/**
 * Every console page gets its own copy of the SPA fallback that preloads the page's route modules
 * and everything they import, as React Router's manifest lists them: the browser fetches them with
 * the HTML's own scripts instead of after the router has started and matched the route, two round
 * trips later (issue 16). The server serves `console/info/index.html` for `/console/info`.
 */
import fs from "node:fs";
import path from "node:path";
import { CONSOLE_PAGES } from "../src/shared/site-routes";

const SPA_FALLBACK = "__spa-fallback.html";

interface ManifestRoute {
  id: string;
  parentId?: string;
  path?: string;
  module: string;
  imports?: string[];
}

function routeManifest(clientDir: string): Record<string, ManifestRoute> {
  const assets = path.join(clientDir, "assets");
  const [file] = fs.readdirSync(assets).filter((f) => /^manifest-[\w-]+\.js$/.test(f));
  if (!file) throw new Error(`console shells: no React Router manifest in ${assets}`);
  const code = fs.readFileSync(path.join(assets, file), "utf8");
  return (JSON.parse(code.replace(/^window\.__reactRouterManifest=/, "").replace(/;\s*$/, "")) as { routes: Record<string, ManifestRoute> }).routes;
}

/** The modules a page's routes need, root excluded (the fallback already loads it), in load order. */
export function routeModulesFor(routes: Record<string, ManifestRoute>, pathname: string): string[] {
  let route = Object.values(routes).find((r) => r.path !== undefined && `/${r.path}` === pathname);
  if (!route) throw new Error(`console shells: no route for ${pathname} in the manifest`);
  const chain: ManifestRoute[] = [];
  while (route && route.id !== "root") {
    chain.unshift(route);
    route = route.parentId ? routes[route.parentId] : undefined;
  }
  return [...new Set(chain.flatMap((r) => [r.module, ...(r.imports ?? [])]))];
}

export function writeConsoleShells(clientDir: string): string[] {
  const fallback = fs.readFileSync(path.join(clientDir, SPA_FALLBACK), "utf8");
  if (!fallback.includes("</head>")) throw new Error(`console shells: ${SPA_FALLBACK} has no </head>`);
  const routes = routeManifest(clientDir);
  const written: string[] = [];
  for (const pathname of CONSOLE_PAGES) {
    const links = routeModulesFor(routes, pathname)
      .filter((href) => !fallback.includes(`"${href}"`))
      .map((href) => `<link rel="modulepreload" href="${href}"/>`)
      .join("");
    const file = path.join(clientDir, pathname.slice(1), "index.html");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, fallback.replace("</head>", `${links}</head>`));
    written.push(file);
  }
  return written;
}
