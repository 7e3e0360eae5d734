import path from "node:path";
import { reactRouter } from "@react-router/dev/vite";
import { defineConfig, type Plugin } from "vite";
import { antdConsoleCss } from "./scripts/antd-styles/vite-plugin.ts";
import { markdownHtml } from "./scripts/markdown/vite-plugin.ts";

// React Router's chunk reload, antd's and rc-component's CSP workarounds and antd's Form.Item measure
// are patches of those packages applied at install (patches/, each naming its decision record).

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

/**
 * The chunk every page loads first: React, React DOM, the router and the site's frame, with the
 * landing page's layout, which in a file of its own cost the landing's first load 79 bytes more.
 */
const FIRST_LOAD_CHUNK = "framework";
const FIRST_LOAD_MODULES = [
  /node_modules[\\/](react|react-dom|react-router|scheduler|zustand)[\\/]/,
  /src[\\/]web[\\/](root\.tsx|layouts[\\/]home\.tsx|components[\\/]site-chrome\.tsx|i18n[\\/](index|en-site)\.ts|lib[\\/](site-config|session-store|chunk-reload|token-storage|zod-jitless)\.ts)$/,
  /src[\\/]shared[\\/](site-config|tool-text)\.ts$/,
];

export default defineConfig({
  plugins: [envDirNotEnvFile(), markdownHtml(), antdConsoleCss(), reactRouter()],
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
