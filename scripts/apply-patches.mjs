// postinstall: applies patches/ to node_modules with patch-package (docs/decisions/052). Each patch
// names the decision it serves; one that no longer applies after an upgrade fails the install.
// The patched code is what the build bundles, so a production install (`npm ci --omit=dev`, after
// the build or on another machine) has no patch-package and needs none: it is skipped there.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
let cli;
try {
  cli = require.resolve("patch-package/index.js");
} catch {
  const omitted = `${process.env.npm_config_omit ?? ""}`.split(/[\s,]+/).includes("dev") || process.env.NODE_ENV === "production";
  if (omitted) {
    console.log("patch-package is not installed (dev dependencies omitted): no dependency patched, as a production install needs");
    process.exit(0);
  }
  console.error("patch-package is missing: run npm ci to install the dev dependencies, whose patches the build needs");
  process.exit(1);
}
const result = spawnSync(process.execPath, [cli, "--error-on-fail"], { stdio: "inherit" });
process.exit(result.status ?? 1);
