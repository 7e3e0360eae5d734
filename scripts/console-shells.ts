/**
 * Every console page gets its own copy of the SPA fallback that preloads the page's route modules
 * and everything they import, as React Router's manifest lists them: the browser fetches them with
 * the app's own scripts instead of after the router has started and matched the route, two round
 * trips later (issue 16). Like the public pages (decision 040), it asks for them, and for the app's
 * scripts, only once its frame is painted (decision 042). The server serves
 * `console/info/index.html` for `/console/info`.
 */
import fs from "node:fs";
import path from "node:path";
import { CONSOLE_PAGES } from "../src/shared/site-routes";
import { ANTD_CONSOLE_CSS } from "./antd-styles/vite-plugin";
import { en, type Messages } from "../src/web/i18n/en";
import { zhCN } from "../src/web/i18n/zh-CN";
import { deferAppScripts } from "./public-pages";

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

type ConsolePage = (typeof CONSOLE_PAGES)[number];
type Catalogue = Pick<Messages, "nav" | "account" | "apiKeys" | "applications" | "billing" | "credits">;

/** What each page shows above its cards before any data: its title, and the intro where it has one. */
const FRAME_TEXT: Record<ConsolePage, (m: Catalogue) => { title: string; intro?: string; titleInRow?: boolean }> = {
  "/console/info": (m) => ({ title: m.nav.info, intro: m.account.intro }),
  // Its title shares a row with the key count and the create button, without margins.
  "/console/api-keys": (m) => ({ title: m.nav.apiKeys, intro: m.apiKeys.intro, titleInRow: true }),
  "/console/apply": (m) => ({ title: m.nav.apply, intro: m.applications.intro }),
  "/console/billing-details": (m) => ({ title: m.nav.billingDetails, intro: m.billing.intro }),
  "/console/charge-details": (m) => ({ title: m.nav.chargeDetails, intro: m.credits.intro }),
};

const LANGUAGES: [string, Catalogue][] = [
  ["en", en],
  ["zh-CN", zhCN],
];

const escapeHtml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/**
 * antd's Typography as the page then renders it (font, sizes, margins, the readable grey of
 * antd-theme.tsx), so the text takes the same place and size: React's copy, painted later, is then
 * no larger, and the page's largest paint stays this one (issue 16). The inline <style> gets the
 * response's CSP nonce from the server.
 */
const FRAME_STYLE = [
  // Where the console's content will be: under its 64 px header (the site's bar is 56 px on a phone),
  // right of its sider, 220 px wide from antd's md breakpoint (1 px of border when collapsed), padded
  // 24 px. Placed absolutely, it stays put while the console layout mounts around it and its sider
  // collapses on a phone.
  ".console-frame{position:absolute;top:64px;left:0;right:0;padding:24px 24px 24px 25px;font-family:-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,'Helvetica Neue',Arial,'Noto Sans',sans-serif,'Apple Color Emoji','Segoe UI Emoji','Segoe UI Symbol','Noto Color Emoji';font-size:14px;line-height:1.5714285714285714;color:rgba(0,0,0,.88)}",
  // antd's h2 keeps the browser's top margin (.83em) and sets the rest; a secondary paragraph is 60 % black.
  ".console-frame h2{margin:.83em 0 .5em;font-size:30px;line-height:1.2666666666666666;font-weight:600}",
  ".console-frame h2.console-frame-row{margin:0}",
  ".console-frame p{margin:0 0 1em;color:rgba(0,0,0,.6)}",
  '.console-frame:not([data-lang="zh-CN"]) [lang="zh-CN"],.console-frame[data-lang="zh-CN"] [lang="en"]{display:none}',
  "@media (min-width:768px){.console-frame{padding-left:244px}}",
].join("");

/** The language the page will pick (i18n/index.ts, preferredLanguage), chosen before the first paint. */
const FRAME_LANGUAGE_SCRIPT =
  '(function(f){var l;try{l=localStorage.getItem("lang")}catch(e){}if(l!=="en"&&l!=="zh-CN")l=(((navigator.languages||[])[0]||navigator.language||"en").toLowerCase().indexOf("zh")===0)?"zh-CN":"en";f.setAttribute("data-lang",l)})(document.currentScript.parentNode)';

/**
 * The console page's frame as static HTML, shown from the first byte with the site's bar: the page's
 * title and intro in both languages. It sits outside React's tree (React 19 skips unknown elements
 * in <body> when it hydrates); the console layout removes it as it renders the page in its place.
 */
export function consoleFrame(pathname: ConsolePage): string {
  const parts = LANGUAGES.map(([lang, messages]) => ({ lang, ...FRAME_TEXT[pathname](messages) }));
  const title = `<h2${parts[0]!.titleInRow ? ' class="console-frame-row"' : ""}>${parts.map((p) => `<span lang="${p.lang}">${escapeHtml(p.title)}</span>`).join("")}</h2>`;
  const intro = parts.map((p) => (p.intro ? `<p lang="${p.lang}">${escapeHtml(p.intro)}</p>` : "")).join("");
  return `<div id="${CONSOLE_FRAME_ID}" class="console-frame"><style>${FRAME_STYLE}</style><script>${FRAME_LANGUAGE_SCRIPT}</script>${title}${intro}</div>`;
}

/**
 * The user info module the root imports once the session is restored, and what it imports: found
 * in the first-load chunk's dynamic imports. Preloaded, the user info request leaves with the
 * page's own queries instead of a round trip after them (issue 16).
 */
export function userInfoModules(clientDir: string): string[] {
  const assets = path.join(clientDir, "assets");
  for (const file of fs.readdirSync(assets).filter((f) => f.endsWith(".js"))) {
    const found = /import\(`\.\/(get-user-info-[\w-]+\.js)`\)/.exec(fs.readFileSync(path.join(assets, file), "utf8"));
    if (!found) continue;
    const module = found[1]!;
    const imports = [...fs.readFileSync(path.join(assets, module), "utf8").matchAll(/import\{[^}]*\}from"\.\/([\w-]+\.js)"/g)].map((m) => m[1]!);
    return [module, ...imports].map((f) => `/assets/${f}`);
  }
  throw new Error(`console shells: no chunk imports get-user-info in ${assets}`);
}

/**
 * The parts of the console's antd stylesheet (scripts/antd-styles), in cascade order, which the
 * console layout links before it renders: preloaded with the page's modules once the frame is painted.
 */
export function antdStylesheets(clientDir: string): string[] {
  const parts = fs
    .readdirSync(path.join(clientDir, "assets"))
    .map((f) => ({ file: f, index: ANTD_CONSOLE_CSS.exec(f)?.[1] }))
    .filter((p): p is { file: string; index: string } => p.index !== undefined)
    .sort((a, b) => Number(a.index) - Number(b.index));
  if (parts.length === 0 || parts.some((p, i) => Number(p.index) !== i)) {
    throw new Error(`console shells: expected the antd stylesheet's parts 0…n in ${clientDir}/assets, found ${parts.map((p) => p.file).join(", ") || "none"}`);
  }
  return parts.map((p) => `/assets/${p.file}`);
}

export const CONSOLE_FRAME_ID = "console-frame";
const SITE_BAR_END = "</header>";

export function writeConsoleShells(clientDir: string): string[] {
  const fallback = fs.readFileSync(path.join(clientDir, SPA_FALLBACK), "utf8");
  if (!fallback.includes("</head>")) throw new Error(`console shells: ${SPA_FALLBACK} has no </head>`);
  if (!fallback.includes(SITE_BAR_END)) throw new Error(`console shells: ${SPA_FALLBACK} has no site bar to put the console frame under`);
  const routes = routeManifest(clientDir);
  const userInfo = userInfoModules(clientDir);
  const stylesheets = antdStylesheets(clientDir);
  const written: string[] = [];
  for (const pathname of CONSOLE_PAGES) {
    const also = [...stylesheets, ...routeModulesFor(routes, pathname), ...userInfo];
    const file = path.join(clientDir, pathname.slice(1), "index.html");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const framed = fallback.replace(SITE_BAR_END, `${SITE_BAR_END}${consoleFrame(pathname)}`);
    // Nothing on the frame answers input before the app runs: no input to keep (decision 042).
    fs.writeFileSync(file, deferAppScripts(framed, { also, keepInput: false }));
    written.push(file);
  }
  return written;
}
