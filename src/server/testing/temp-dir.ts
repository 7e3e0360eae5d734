import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** A fresh directory for one test file's DATA_DIR (its SMS outbox), so files never see each other's messages. */
export function tempDataDir(prefix = "tollgate-test-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}
