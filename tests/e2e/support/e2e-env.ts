import path from "node:path";

/** The end-to-end server's port; set E2E_PORT to run two suites side by side. */
export const E2E_PORT = Number(process.env.E2E_PORT ?? 3100);
/** Where the end-to-end server keeps its data, so tests can read the SMS outbox it writes. */
export const E2E_DATA_DIR = path.resolve(`.test-output/e2e-data-${E2E_PORT}`);
export const E2E_DATABASE_NAME = `tollgate_e2e_${E2E_PORT}`;
/** The web build under test (BUILD_DIR, as for `npm run build`). */
export const E2E_WEB_ROOT = path.resolve(process.env.BUILD_DIR ?? "build", "client");
