import path from "node:path";
import { reactRouter } from "@react-router/dev/vite";
import { defineConfig, type Plugin } from "vite";
import { antdConsoleCss } from "./scripts/antd-styles/vite-plugin.ts";
import { markdownHtml } from "./scripts/markdown/vite-plugin.ts";

const RR_RELOAD = /window\.location\.reload\(\);\s*return new Promise\(\(\) => \{\s*\}\);/;

/**
 * React Router reloads the page whenever a route module fails to load, with no guard, so a chunk
 * that is really gone reloads forever. SPEC.md §4 wants a 10 s guard: route the reload through ours.
 * No supported hook can (react-router 7.18): the reload happens inside loadRouteModule before any
 * error surfaces to an ErrorBoundary or HydratedRouter's onError, its raw import() raises no
 * vite:preloadError, instrumentations are read-only, and HydratedRouter takes no patchRoutesOnNavigation.
 */
function guardedRouteModuleReload(): Plugin {
  return {
    name: "tollgate:guarded-route-module-reload",
    enforce: "pre",
    transform(code, id) {
      if (!id.includes("/node_modules/react-router/dist/") || !code.includes("async function loadRouteModule(")) return null;
      if (!RR_RELOAD.test(code)) this.error("react-router's loadRouteModule changed: update the chunk-reload guard");
      return code.replace(
        RR_RELOAD,
        // React Router swallows a failed module of a route without a loader and renders nothing, so a
        // refused reload hands it a component that throws: the error page shows instead.
        "if (!globalThis.__tollgateReloadAfterChunkError?.(error)) return { default() { throw error; } };\n    return new Promise(() => {});",
      );
    },
  };
}

const RC_STYLE_NONCE = /if \(csp\?\.nonce\) \{\s*styleNode\.nonce = csp\?\.nonce;\s*\}/;

/**
 * antd's helpers write some <style> elements without the nonce ConfigProvider was given (the
 * modal's scroll lock, the scrollbar measure), and the CSP refuses them. Every <style> they write
 * goes through one function in @rc-component/util: let it fall back to the page's nonce.
 */
function styleNonceFallback(): Plugin {
  return {
    name: "tollgate:style-nonce-fallback",
    enforce: "pre",
    transform(code, id) {
      if (!/\/node_modules\/@rc-component\/util\/(es|lib)\/Dom\/dynamicCSS\.js$/.test(id)) return null;
      if (!RC_STYLE_NONCE.test(code)) this.error("@rc-component/util's injectCSS changed: update the style nonce fallback");
      return code.replace(
        RC_STYLE_NONCE,
        'const nonce = csp?.nonce || document.querySelector(\'meta[property="csp-nonce"]\')?.nonce;\n  if (nonce) styleNode.nonce = nonce;',
      );
    },
  };
}

const RC_TEXTAREA_STYLE_ATTRIBUTE = /hiddenTextarea\.setAttribute\('style', (`[^`]*`)\);/;

/** The auto-sizing TextArea measures with a style *attribute*, which the CSP refuses; the CSSOM is allowed. */
function textareaMeasureWithoutStyleAttribute(): Plugin {
  return {
    name: "tollgate:textarea-measure-cssom",
    enforce: "pre",
    transform(code, id) {
      if (!/\/node_modules\/@rc-component\/input\/(es|lib)\/calculateNodeHeight\.js$/.test(id)) return null;
      if (!RC_TEXTAREA_STYLE_ATTRIBUTE.test(code)) this.error("@rc-component/input's calculateNodeHeight changed: update the CSP workaround");
      return code.replace(RC_TEXTAREA_STYLE_ATTRIBUTE, "hiddenTextarea.style.cssText = $1;");
    },
  };
}

const ANTD_FORM_EXTRA_MEASURE = /useLayoutEffect\(\(\) => \{\s*if \(hasExtra && extraRef\.current\) \{\s*setExtraHeight\(extraRef\.current\.clientHeight\);\s*\} else \{\s*setExtraHeight\(0\);\s*\}\s*\}, \[extra, hasExtra\]\);/;

/**
 * A Form.Item with `extra` (help under the field) reads the help's height in a layout effect when
 * it mounts: a forced style and layout of the whole page inside React's commit, ~100 ms of
 * /console/info's longest task under a 4x CPU slowdown (its alerts form; decision 041). The height
 * is used only while an error is shown (`minHeight: marginBottom + extraHeight`, which keeps the
 * item's height while the error animates out; `marginBottom` is set once an error appears), so it
 * is measured then: the effect runs again when `marginBottom` comes, before that render is painted.
 */
function formItemExtraMeasuredWithErrors(): Plugin {
  return {
    name: "tollgate:form-item-extra-measured-with-errors",
    enforce: "pre",
    transform(code, id) {
      // antd's ES build, which the browser gets; the server runs no layout effects.
      if (!/\/node_modules\/antd\/es\/form\/FormItemInput\.js$/.test(id)) return null;
      if (!ANTD_FORM_EXTRA_MEASURE.test(code)) this.error("antd's FormItemInput changed: update the Form.Item extra measure");
      return code.replace(
        ANTD_FORM_EXTRA_MEASURE,
        "useLayoutEffect(() => {\n    if (hasExtra && extraRef.current && marginBottom) {\n      setExtraHeight(extraRef.current.clientHeight);\n    } else {\n      setExtraHeight(0);\n    }\n  }, [extra, hasExtra, marginBottom]);",
      );
    },
  };
}

/**
 * React Router 7 starts its child compiler with `envFile: false`, which Vite 8 reports as deprecated
 * each time (changed in React Router 8: remix-run/react-router#15229): the same setting as Vite names it now.
 */
function envDirNotEnvFile(): Plugin {
  return {
    name: "tollgate:env-dir-not-env-file",
    config(config) {
      // Vite's own types no longer list the option.
      const legacy = config as { envFile?: boolean };
      if (legacy.envFile !== false) return;
      delete legacy.envFile;
      config.envDir = false;
    },
  };
}

/** The chunk every page loads first: React, React DOM, the router and the site's frame. */
const FIRST_LOAD_CHUNK = "framework";
const FIRST_LOAD_MODULES = [
  /node_modules[\\/](react|react-dom|react-router|scheduler|zustand)[\\/]/,
  /src[\\/]web[\\/](root\.tsx|components[\\/]site-chrome\.tsx|i18n[\\/](index|en-site)\.ts|lib[\\/](site-config|session-store|chunk-reload|token-storage|build-updates|zod-jitless)\.ts)$/,
  /src[\\/]shared[\\/](site-config|tool-text)\.ts$/,
];

export default defineConfig({
  plugins: [envDirNotEnvFile(), guardedRouteModuleReload(), styleNonceFallback(), textareaMeasureWithoutStyleAttribute(), formItemExtraMeasuredWithErrors(), markdownHtml(), antdConsoleCss(), reactRouter()],
  // Prerendered pages show the site identity of the build's environment (src/web/lib/site-config.ts).
  envPrefix: ["VITE_", "SITE_NAME", "COMPANY_NAME", "CONTACT_EMAIL", "LEGAL_EFFECTIVE_DATE"],
  define: {
    __BUILD_ID__: JSON.stringify(process.env.BUILD_ID ?? "dev"),
  },
  server: { port: 5173 },
  build: {
    // Dynamic imports from the first load (the login modal, error pages) list only their CSS to
    // preload: their JavaScript dependencies arrive through their own imports. The lists cost the
    // landing page's first load 0.2 kB (issue 16's budget), the login modal one round trip more.
    modulePreload: {
      resolveDependencies: (_file, deps, { hostId }) =>
        path.basename(hostId).startsWith(`${FIRST_LOAD_CHUNK}-`) ? deps.filter((dep) => dep.endsWith(".css")) : deps,
    },
    rolldownOptions: {
      // Most of the build's time is the console's antd stylesheet, read on purpose (decision 034):
      // a report of it after every build would be one to ignore.
      checks: { bundlerTimings: false },
      // One file gzips ~2 kB smaller than the nine rolldown would otherwise split the first load into.
      output: { codeSplitting: { groups: [{ name: FIRST_LOAD_CHUNK, test: (id) => FIRST_LOAD_MODULES.some((module) => module.test(id)) }] } },
    },
  },
});
