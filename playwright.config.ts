import { fileURLToPath } from "node:url";
import { defineConfig, devices } from "@playwright/test";

import { E2E_PORT } from "./tests/e2e/support/e2e-env";

export const E2E_BASE_URL = `http://127.0.0.1:${E2E_PORT}`;

/** Debian's Chromium, kept at its caller's priority and given every --disable-features (the script says why). */
export const CHROMIUM_EXECUTABLE = fileURLToPath(new URL("./tests/e2e/support/chromium.sh", import.meta.url));

/** Flags Chromium needs as root on a machine with no outside network (ARCHITECTURE.md), and one that spares its CPU. */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  // Chromium 156 draws its omnibox's popup with WebUI: every window of every test started two
  // renderers of it, a quarter of Chromium's CPU in a run (docs/decisions/062). A test never opens it.
  "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup",
];

/**
 * Specs of what the pages do, where the database only stores what the server tests already check
 * on both databases: scripts/test.sh runs them once, on PGlite. Every other spec runs on both
 * (E2E_DATABASE_SPECS_ONLY leaves these out), so a new spec lands there without anyone listing it.
 * README.md ("Testing") gives the rule for adding one here.
 */
export const PAGES_ONLY = [
  "accessibility",
  "captcha-adapters",
  "console-messages",
  "docs-site",
  "foundation-errors",
  "foundation-i18n",
  "foundation-retry",
  "foundation-routes",
  "foundation-updates",
  "form-messages",
  "layouts",
  "legal-pages",
  "login",
  "page-titles",
  "phone-layout",
  "pages",
  "tool-answers",
].map((name) => `**/${name}.spec.ts`);

export default defineConfig({
  testDir: "tests/e2e",
  testMatch: "**/*.spec.ts",
  testIgnore: process.env.E2E_DATABASE_SPECS_ONLY ? PAGES_ONLY : [],
  // One folder per server port, so suites run side by side never clear each other's results.
  outputDir: `test-results/${E2E_PORT}`,
  fullyParallel: true,
  // Three on two cores: with two, the PGlite leg kept 0.6 of a core busy (CI on c8a50fc: 432 s of
  // CPU in 709 s), the rest waiting on timers, polls and the server.
  workers: Number(process.env.E2E_WORKERS ?? 3),
  retries: 0,
  // A hang guard, not a measure: on two loaded cores a long flow took 23–35 s with every step moving.
  // Races show up against the 7 s per-check limit below.
  timeout: 60_000,
  expect: { timeout: 7_000 },
  // scripts/test.sh names one report per database (E2E_REPORT).
  reporter: [["list"], ["json", { outputFile: process.env.E2E_REPORT ?? (process.env.CI ? ".test-output/playwright.json" : `.test-output/playwright-${E2E_PORT}.json`) }]],
  use: {
    baseURL: E2E_BASE_URL,
    trace: "retain-on-failure",
    launchOptions: { executablePath: CHROMIUM_EXECUTABLE, args: CHROMIUM_ARGS },
  },
  projects: [{ name: "chromium", use: { ...devices["Desktop Chrome"], channel: undefined } }],
  webServer: {
    command: "npx tsx tests/e2e/support/serve.ts",
    url: `${E2E_BASE_URL}/api/v1/health`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: "ignore",
    stderr: "pipe",
    env: { E2E_PORT: String(E2E_PORT) },
  },
});
