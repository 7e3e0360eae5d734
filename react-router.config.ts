import type { Config } from "@react-router/dev/config";
import { PRERENDERED_PATHS } from "./src/shared/site-routes";

export default {
  appDirectory: "src/web",
  buildDirectory: process.env.BUILD_DIR ?? "build",
  ssr: false,
  prerender: [...PRERENDERED_PATHS],
} satisfies Config;
