import fs from "node:fs";
import path from "node:path";
import { DataDirInUseError } from "../lib/private-data-dir";

/** In DATA_DIR: the id of the process that has its embedded database open, as postmaster.pid is for PostgreSQL's. */
export const EMBEDDED_LOCK_FILE = "pglite.pid";

/** Folders this process has open: a second open from the same process is refused too. */
const heldHere = new Set<string>();

function recordedPid(file: string): number | null {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  const pid = Number(text.trim());
  return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs under another account.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Takes DATA_DIR's embedded database for this process, or throws DataDirInUseError naming the
 * process that has it: PGlite opens a folder another process has open without a word, and two
 * processes writing one database's files corrupt it. The admin socket only shows a server that has
 * started; this also covers one that is still opening its database, and an admin command or a
 * migration that opened it directly. Returns the release.
 *
 * The file is made whole and in one step (a link of a written file). A file whose process has
 * ended (killed, or the machine stopped) is taken over; one naming this process's own id is
 * another process's that had it before (a container's first process always has id 1), as
 * PostgreSQL judges its postmaster.pid. Like PostgreSQL's, the takeover assumes two processes do
 * not start on one folder in the same instant after a crash.
 */
export function lockEmbeddedDatabase(dataDir: string): () => void {
  const folder = path.resolve(dataDir);
  if (heldHere.has(folder)) throw new DataDirInUseError(dataDir, process.pid);
  fs.mkdirSync(folder, { recursive: true });
  const file = path.join(folder, EMBEDDED_LOCK_FILE);
  const written = `${file}.${process.pid}.new`;
  fs.writeFileSync(written, `${process.pid}\n`, { mode: 0o600 });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        fs.linkSync(written, file);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        const holder = recordedPid(file);
        if (holder !== null && holder !== process.pid && running(holder)) throw new DataDirInUseError(dataDir, holder);
        if (attempt > 0) throw new DataDirInUseError(dataDir, holder ?? undefined);
        fs.rmSync(file, { force: true });
      }
    }
  } finally {
    fs.rmSync(written, { force: true });
  }
  heldHere.add(folder);
  return () => {
    heldHere.delete(folder);
    if (fs.existsSync(file) && recordedPid(file) === process.pid) fs.rmSync(file, { force: true });
  };
}
