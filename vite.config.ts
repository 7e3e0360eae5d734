import { reactRouter } from "@react-router/dev/vite";
import { defineConfig, type Plugin } from "vite";
import { markdownHtml } from "./scripts/markdown/vite-plugin";

const RR_RELOAD = /window\.location\.reload\(\);\s*return new Promise\(\(\) => \{\s*\}\);/;

/**
 * React Router reloads the page whenever a route module fails to load, with no guard, so a chunk
 * that is really gone reloads forever. SPEC.md §4 wants a 10 s guard: route the reload through ours.
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

export default defineConfig({
  plugins: [guardedRouteModuleReload(), markdownHtml(), reactRouter()],
  // Prerendered pages show the site identity of the build's environment (src/web/lib/site-config.ts).
  envPrefix: ["VITE_", "SITE_NAME", "COMPANY_NAME", "CONTACT_EMAIL", "LEGAL_EFFECTIVE_DATE"],
  define: {
    __BUILD_ID__: JSON.stringify(process.env.BUILD_ID ?? "dev"),
  },
  server: { port: 5173 },
});
