/**
 * The prerendered public pages (`/` and the legal pages) load the app's JavaScript once their first
 * paint is on screen, not beside it (issue 16, decision 040).
 *
 * React Router writes each page with a `<link rel="modulepreload">` per module (React, the router,
 * the page's routes: ~115 kB gzip on `/`) and an inline module script that imports them. The first
 * paint needs none of it, yet on the machine that records Lighthouse's trace those requests end
 * before the first frame is painted, and Lighthouse's simulation then counts every one of them
 * before its first and largest paint (1.9–2.3 s simulated, where the docs pages, HTML and CSS alone,
 * paint at 0.8 s). This rewrites each page so that its HTML asks for no script: a small inline script
 * in the place of React Router's waits for the first contentful paint, then preloads the same
 * modules and imports them in the order React Router's script did.
 *
 * Until the app has hydrated, the header's buttons and language switch have no handlers; the same
 * script keeps the clicks and language choices made meanwhile, and the app replays them once it has
 * hydrated (`src/web/lib/early-input.ts`), so the first click on "Log in" opens the dialog.
 */
import fs from "node:fs";
import path from "node:path";
import { PRERENDERED_PATHS } from "../src/shared/site-routes";
import { REFERRAL_CODE, REFERRAL_KEY } from "../src/web/features/auth/referral";
import { CHUNK_RELOAD_GUARD_MS, LAST_RELOAD_KEY } from "../src/web/lib/chunk-reload";
import { EARLY_INPUT_GLOBAL } from "../src/web/lib/early-input";

const MODULEPRELOAD = /<link rel="modulepreload" href="(\/assets\/[\w.-]+\.js)"\/>/g;
const MODULE_SCRIPT = /<script type="module" async="">([\s\S]*?)<\/script>/g;

/** What React Router's inline module script does, read back from it. */
export interface RouteModulesScript {
  /** `import "…"` for its side effects (the manifest), in order. */
  sideEffects: string[];
  /** Route id → module, in the order the script imports them. */
  routes: [string, string][];
  /** The client entry, imported once the route modules are in place. */
  entry: string;
}

/** Reads React Router's inline module script; refuses any other shape, so a changed router fails the build. */
export function parseRouteModulesScript(code: string): RouteModulesScript {
  const lines = code
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
  const sideEffects: string[] = [];
  const bindings = new Map<string, string>();
  let routeIds: [string, string][] | undefined;
  let entry: string | undefined;
  for (const line of lines) {
    let m: RegExpExecArray | null;
    if ((m = /^import "(\/assets\/[\w.-]+\.js)";$/.exec(line))) sideEffects.push(m[1]!);
    else if ((m = /^import \* as (route\d+) from "(\/assets\/[\w.-]+\.js)";$/.exec(line))) bindings.set(m[1]!, m[2]!);
    else if ((m = /^window\.__reactRouterRouteModules = \{(.*)\};$/.exec(line))) {
      routeIds = [...m[1]!.matchAll(/("[^"]+"):(route\d+)/g)].map((r) => [JSON.parse(r[1]!) as string, r[2]!]);
    } else if ((m = /^import\("(\/assets\/[\w.-]+\.js)"\);$/.exec(line))) entry = m[1]!;
    else throw new Error(`public pages: React Router's module script has a line this build does not know: ${line}`);
  }
  if (!routeIds || !entry || bindings.size === 0) throw new Error(`public pages: React Router's module script is not the expected shape:\n${code}`);
  const routes = routeIds.map(([id, binding]): [string, string] => {
    const module = bindings.get(binding);
    if (!module) throw new Error(`public pages: ${binding} (route ${id}) is not imported by React Router's module script`);
    return [id, module];
  });
  return { sideEffects, routes, entry };
}

/**
 * The inline script that replaces React Router's. Plain ES5 in one IIFE: it runs where the parser
 * meets it, before the first paint, so the early-input listeners are there as soon as the buttons
 * can be seen.
 * - After the first contentful paint (a `paint` PerformanceObserver; at once in a hidden document,
 *   which paints nothing; after one frame where paint timing is missing; after 3 s at the latest),
 *   it links the modulepreloads React Router wrote, one per task, then imports the side-effect
 *   modules, the route modules, sets `window.__reactRouterRouteModules` and imports the client
 *   entry, which hydrates.
 * - Clicks on buttons and changes of selects made before the app has hydrated are kept; the app
 *   calls `window[EARLY_INPUT_GLOBAL]()` once hydrated, which stops keeping them and replays them on
 *   the same elements (hydration keeps the prerendered elements).
 * - The page's referral code (`?r=`) is kept for the session at once, as the app does once started
 *   (features/auth/referral.ts): a link followed before then is a page load, which drops the query.
 */
export function publicPageLoader(preloads: string[], script: RouteModulesScript, { keepInput = true }: { keepInput?: boolean } = {}): string {
  const imports = (modules: string[]) => `[${modules.map((m) => `import(${JSON.stringify(m)})`).join(",")}]`;
  const routeModules = `{${script.routes.map(([id], i) => `${JSON.stringify(id)}:r[${i}]`).join(",")}}`;
  const stylesheets = preloads.some((href) => href.endsWith(".css"));
  return [
    "(function(w,d){",
    "var done=0;",
    ...(keepInput
      ? [
          "var kept=[];",
          `try{var r=new URLSearchParams(location.search).get("r");if(r&&/${REFERRAL_CODE.source}/.test(r))sessionStorage.setItem(${JSON.stringify(REFERRAL_KEY)},r)}catch(e){}`,
          'function keep(e){var t=e.target,el=t&&t.closest&&t.closest(e.type==="click"?"button":"select");if(el)kept.push([e.type,el,el.value])}',
          'd.addEventListener("click",keep,true);d.addEventListener("change",keep,true);',
          `w.${EARLY_INPUT_GLOBAL}=function(){`,
          `w.${EARLY_INPUT_GLOBAL}=null;d.removeEventListener("click",keep,true);d.removeEventListener("change",keep,true);`,
          'kept.forEach(function(k){var el=k[1];if(!el.isConnected)return;if(k[0]==="click")el.click();else{el.value=k[2];el.dispatchEvent(new Event("change",{bubbles:true}))}})',
          "};",
        ]
      : []),
    // One link per task: each request a script starts costs the main thread a few ms (more with
    // DevTools' network recording, as in Lighthouse), seven in one task made it a long one. A
    // message, not a timer, to the next task: not clamped when nested, not stopped by a fake clock.
    `function load(){if(done)return;done=1;var p=${JSON.stringify(preloads)},i=0,c=new MessageChannel();c.port1.onmessage=next;next();`,
    'function next(){if(i<p.length){var l=d.createElement("link"),h=p[i++];',
    stylesheets ? 'if(/\\.css$/.test(h)){l.rel="preload";l.as="style"}else l.rel="modulepreload";' : 'l.rel="modulepreload";',
    'l.href=h;d.head.appendChild(l);c.port2.postMessage(0)}else{c.port1.onmessage=null;start()}}',
    "}",
    "function start(){",
    `Promise.all(${imports(script.sideEffects)})`,
    `.then(function(){return Promise.all(${imports(script.routes.map(([, m]) => m))})})`,
    `.then(function(r){w.__reactRouterRouteModules=${routeModules};return import(${JSON.stringify(script.entry)})})`,
    // A module that fails to load (a deploy since the HTML came) reloads the page, by the app's rule (lib/chunk-reload.ts).
    `.catch(function(e){console.error("the app could not start",e);try{var n=Date.now();if(n-Number(sessionStorage.getItem(${JSON.stringify(LAST_RELOAD_KEY)})||0)>=${CHUNK_RELOAD_GUARD_MS}){sessionStorage.setItem(${JSON.stringify(LAST_RELOAD_KEY)},String(n));location.reload()}}catch(x){}})`,
    "}",
    "setTimeout(load,3000);",
    'if(d.visibilityState==="hidden")load();',
    'else try{if(PerformanceObserver.supportedEntryTypes.indexOf("paint")<0)throw 0;',
    'new PerformanceObserver(function(l,o){if(l.getEntriesByName("first-contentful-paint").length){o.disconnect();load()}}).observe({type:"paint",buffered:true});',
    'd.addEventListener("visibilitychange",function(){if(d.visibilityState==="hidden")load()})',
    "}catch(e){requestAnimationFrame(function(){setTimeout(load)})}",
    "})(window,document)",
  ].join("");
}

/**
 * Rewrites one page: no modulepreload, and the loader in place of React Router's module script.
 * `also` is preloaded with the page's own modules (`.css` as a stylesheet): the console pages' route
 * modules and antd stylesheet (scripts/console-shells.ts).
 */
export function deferAppScripts(html: string, { also = [], keepInput = true }: { also?: string[]; keepInput?: boolean } = {}): string {
  const preloads = [...html.matchAll(MODULEPRELOAD)].map((m) => m[1]!);
  const scripts = [...html.matchAll(MODULE_SCRIPT)];
  if (preloads.length === 0) throw new Error("public pages: no modulepreload in a prerendered page");
  if (scripts.length !== 1) throw new Error(`public pages: expected one module script in a prerendered page, found ${scripts.length}`);
  const [whole, code] = scripts[0]!;
  const loader = publicPageLoader([...new Set([...preloads, ...also])], parseRouteModulesScript(code!), { keepInput });
  // The classic script stays where React Router's was: React, hydrating the body, matches a <script> there.
  return html.replace(MODULEPRELOAD, "").replace(whole, () => `<script>${loader}</script>`);
}

/** The prerendered pages' HTML files, `/` and the legal pages. */
export function publicPageFiles(clientDir: string): string[] {
  return PRERENDERED_PATHS.map((p) => path.join(clientDir, p === "/" ? "index.html" : `${p.slice(1)}/index.html`));
}

export function writePublicPages(clientDir: string): string[] {
  const files = publicPageFiles(clientDir);
  for (const file of files) fs.writeFileSync(file, deferAppScripts(fs.readFileSync(file, "utf8")));
  return files;
}
