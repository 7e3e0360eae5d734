import { configDefaults, defineConfig } from "vitest/config";

/**
 * Files whose tests do not use the run's database (DATABASE_URL): they open none, or one of their
 * own whatever the run's (tests/cluster always PostgreSQL, production-install always PGlite).
 * scripts/test.sh runs them once, without DATABASE_URL, at the end of the browser lane; every other file runs on both databases, so
 * a new file lands there without anyone listing it. A file listed here that asks for the run's
 * database fails (createTestDatabase finds no template): take it off the list.
 */
export const ONCE = [
  "src/shared/**/*.test.ts",
  "src/web/**/*.test.{ts,tsx}",
  "src/server/{config,logger}.test.ts",
  "src/server/plugins/{lifecycle,metric-series}.test.ts",
  "src/server/db/pglite-on-thread.test.ts",
  "src/server/cli/no-database.test.ts",
  "src/server/lib/{crypto,group-commit,load-once,local-secret,private-data-dir,rate-limiter,sliding-window}.test.ts",
  "src/server/modules/alerts/address-guard.test.ts",
  "src/server/modules/calls/network.test.ts",
  "src/server/modules/auth/config.test.ts",
  "src/server/modules/catalog/catalog-file.test.ts",
  "src/server/modules/credits/csv.test.ts",
  "src/server/modules/gateway/{handlers/handlers,handlers/openai-answer,handlers/openai-request,seen-balances}.test.ts",
  "src/server/modules/payments/config.test.ts",
  "src/server/providers/**/*.test.ts",
  "tests/cluster/**/*.test.ts",
  "tests/unit/{antd-styles-split,antd-styles,antd-token-seed,bin-tollgate,chromium-wrapper,db-functions}.test.ts",
  "tests/unit/{console-data,console-shells,docs-api-reference,docs-languages,docs-markdown,feature-boundaries}.test.ts",
  "tests/unit/{http-client,i18n-catalogue,landing-budget,production-install}.test.ts",
  "tests/unit/{migrations-generated,monitoring,money-wing,public-pages,readme,server-process,zod-jitless}.test.ts",
];

const ALL = ["src/**/*.test.ts", "src/**/*.test.tsx", "tests/unit/**/*.test.ts", "tests/cluster/**/*.test.ts", "bench/**/*.test.ts"];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // PGlite instances made and closed by the hundred in one worker hit a V8 13 bug: freeing wasm
    // code it replaced (tier-up, import wrappers) can trip ThreadIsolation's registry, and the worker
    // dies on `Check failed: jit_page_->allocations_.erase(addr) == 1` with its files unrun (CI,
    // 2026-11-29; nodejs/node#64500). A test worker keeps that code instead of freeing it.
    execArgv: ["--no-wasm-code-gc"],
    // One file at a time on two cores (Vitest's default there): two at once, on a machine other
    // work kept busy, PGlite's statements waited past the 30 s test limit (README.md, "Testing").
    projects: [
      {
        extends: true,
        // One module graph per worker, not per file (decision 061): each file opens its own
        // database and app, and importing the server's modules again was 40% of this project's CPU.
        test: {
          name: "both",
          include: ALL,
          exclude: [...configDefaults.exclude, ...ONCE],
          globalSetup: ["tests/setup/database-template.ts"],
          isolate: false,
        },
      },
      { extends: true, test: { name: "once", include: ONCE } },
    ],
  },
  define: { __BUILD_ID__: JSON.stringify("test") },
});
