import type { Config } from "@react-router/dev/config";
import { PRERENDERED_PATHS } from "./src/shared/site-routes";

export default {
  appDirectory: "src/web",
  buildDirectory: process.env.BUILD_DIR ?? "build",
  ssr: false,
  prerender: [...PRERENDERED_PATHS],
  // React Router 8's behaviour where it changes nothing here (no middleware, no server rendering);
  // v7's where it would change what the build emits that scripts/console-shells.ts, the landing
  // budget and the server's static files rely on (route chunks, the build pipeline, .data URLs),
  // until the move to React Router 8.
  future: {
    v8_middleware: true,
    v8_passThroughRequests: true,
    v8_splitRouteModules: false,
    v8_viteEnvironmentApi: false,
    v8_trailingSlashAwareDataRequests: false,
  },
} satisfies Config;
