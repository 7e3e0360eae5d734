import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";
import { noCrossFeatureImports } from "./scripts/lint/no-cross-feature-imports.js";

export default tseslint.config(
  { ignores: ["build/", "build-*/", "dist/", "node_modules/", ".react-router/", ".test-output/", "test-results/", "test-results-*/", "playwright-report/", "drizzle/", "data/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-non-null-assertion": "off",
    },
  },
  {
    files: ["src/web/**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
  {
    // Boundaries (ARCHITECTURE.md): shared is imported by both sides and imports neither.
    files: ["src/shared/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["node:*", "react", "react-*", "**/server/**", "**/web/**"], message: "src/shared must stay free of node, react, server and web code" }] },
      ],
    },
  },
  {
    files: ["src/server/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ group: ["**/web/**", "react", "antd"], message: "the server does not import web code" }] }],
    },
  },
  {
    // Providers speak to the outside world for the modules: they take their settings as their own
    // config types and import no module, plugin or route (issue 35 §4).
    files: ["src/server/providers/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["**/web/**", "react", "antd"], message: "the server does not import web code" },
            { group: ["**/modules/**", "**/plugins/**", "**/app", "**/app.ts"], message: "a provider imports no module or plugin: give it a config type of its own" },
          ],
        },
      ],
    },
  },
  {
    // The CLI's runner imports the modules' commands; the modules take the CLI's helpers from lib/cli.
    files: ["src/server/modules/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["**/web/**", "react", "antd"], message: "the server does not import web code" },
            { group: ["**/server/cli/**", "../../cli/**"], message: "a module's commands take the CLI's helpers from lib/cli; src/server/cli imports the modules" },
            { group: ["**/plugins/**"], message: "a module imports no plugin: what modules and plugins both use is in lib/ (issue 35 §3)" },
            { regex: "^\\.\\./[a-z-]+/(?!index$)", message: "another module is imported through its index.ts, which says what it offers" },
          ],
        },
      ],
    },
  },
  {
    // Plugins are the app's cross-cutting hooks; what they need of a module, app.ts hands them as an
    // option, and what plugins and modules share is in lib/ (issue 35 §3).
    files: ["src/server/plugins/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["**/web/**", "react", "antd"], message: "the server does not import web code" },
            { group: ["**/modules/**"], message: "a plugin imports no module: app.ts passes what it needs of one, and what both use is in lib/" },
          ],
        },
      ],
    },
  },
  {
    files: ["src/server/lib/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["**/web/**", "react", "antd"], message: "the server does not import web code" },
            { group: ["**/modules/**", "**/plugins/**"], message: "lib/ imports no module or plugin: they build on it" },
          ],
        },
      ],
    },
  },
  {
    files: ["src/web/features/**/*.{ts,tsx}"],
    plugins: { tollgate: { rules: { "no-cross-feature-imports": noCrossFeatureImports } } },
    rules: { "tollgate/no-cross-feature-imports": "error" },
  },
  {
    files: ["src/web/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ group: ["**/server/**", "node:*", "drizzle-orm*", "pg"], message: "the web app does not import server code" }] }],
      // no-restricted-imports sees only static imports; the same tiers hold for import().
      "no-restricted-syntax": [
        "error",
        { selector: "ImportExpression[source.value=/(^|\\/)server\\/|^node:|^drizzle-orm|^pg$/]", message: "the web app does not import server code, not even with import()" },
      ],
    },
  },
);
