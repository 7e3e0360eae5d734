import path from "node:path";

/** Where the end-to-end server keeps its data, so tests can read the SMS outbox it writes. */
export const E2E_DATA_DIR = path.resolve(".test-output/e2e-data");
export const E2E_DATABASE_NAME = "tollgate_e2e";
