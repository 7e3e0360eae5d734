import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "src/**/*.test.tsx", "tests/unit/**/*.test.ts", "tests/cluster/**/*.test.ts", "bench/**/*.test.ts"],
    globalSetup: ["tests/setup/database-template.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
  define: { __BUILD_ID__: JSON.stringify("test") },
});
