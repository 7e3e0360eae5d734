import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/**
 * The secret kept in `file` (made in its folder, 0600, on first use). Processes starting at once
 * on a new folder (a cluster's workers, servers sharing DATA_DIR) all get the one that was kept
 * first: each writes its own candidate whole to a file of its own and links it into place, which
 * succeeds for one of them; the others read that one, complete.
 */
export function readOrCreateSecret(file: string): string {
  const kept = readSecret(file);
  if (kept !== null) return kept;
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const secret = randomBytes(32).toString("hex");
  const candidate = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
  fs.writeFileSync(candidate, secret, { mode: 0o600, flag: "wx" });
  try {
    fs.linkSync(candidate, file);
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return readSecret(file)!;
  } finally {
    fs.rmSync(candidate, { force: true });
  }
}

function readSecret(file: string): string | null {
  try {
    return fs.readFileSync(file, "utf8").trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}
