import fs from "node:fs";
import path from "node:path";

/** Group and others get nothing: the mask PostgreSQL itself runs under (PG_MODE_MASK_OWNER). */
const OWNER_ONLY_UMASK = 0o077;
const GROUP_OR_OTHERS = 0o077;

export class DataDirNotPrivateError extends Error {
  constructor(
    readonly dataDir: string,
    readonly reachable: string[],
  ) {
    super(
      `DATA_DIR ${dataDir} can be read or written by other accounts (${reachable.slice(0, 3).join(", ")}` +
        `${reachable.length > 3 ? `, and ${reachable.length - 3} more` : ""}), and this process could not tighten it: ` +
        `its files must belong to the account that runs the server. Fix it with:\n` +
        `  chown -R "$(id -u):$(id -g)" ${JSON.stringify(dataDir)} && chmod -R go-rwx ${JSON.stringify(dataDir)}`,
    );
    this.name = "DataDirNotPrivateError";
  }
}

/**
 * DATA_DIR holds the embedded database of a server that is running (its admin socket answers), or
 * another process has that database open (`holderPid`: db/embedded-lock.ts). PGlite belongs to one
 * process: a second one on the same folder would write the same files, and on stopping would remove
 * the first one's admin socket, after which `tollgate admin` opens the database beside the running server.
 */
export class DataDirInUseError extends Error {
  constructor(dataDir: string, holderPid?: number) {
    const holder =
      holderPid === undefined
        ? "a Tollgate server is running on its embedded database (its admin socket answers)"
        : `process ${holderPid} has its embedded database open (a Tollgate server, starting or running, or an admin command)`;
    super(`DATA_DIR ${dataDir} is in use: ${holder}, and PGlite belongs to one process. Stop that ${holderPid === undefined ? "server" : "process"} first, or give this one a DATA_DIR of its own (or a DATABASE_URL).`);
    this.name = "DataDirInUseError";
  }
}

/**
 * Makes DATA_DIR (the embedded database, the local secret, the SMS outbox, the admin socket)
 * reachable by its owner only, whatever the umask: creates it 0700, removes group and other
 * bits that an older version or a loose umask left on what the process owns, and keeps every
 * later file owner-only by setting the process umask. Throws when something stays reachable.
 */
export function securePrivateDataDir(dataDir: string): void {
  process.umask(OWNER_ONLY_UMASK);
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const uid = process.getuid?.();
  const reachable: string[] = [];
  const visit = (file: string) => {
    // A file removed while the walk runs (another worker's outbox rotation, say) has nothing to tighten.
    const stat = fs.lstatSync(file, { throwIfNoEntry: false });
    if (!stat || stat.isSymbolicLink()) return;
    if ((stat.mode & GROUP_OR_OTHERS) !== 0) {
      if (uid === undefined || stat.uid === uid) fs.chmodSync(file, stat.mode & 0o700);
      else reachable.push(path.relative(dataDir, file) || ".");
    }
    if (stat.isDirectory()) for (const entry of fs.readdirSync(file)) visit(path.join(file, entry));
  };
  visit(dataDir);
  if (reachable.length > 0) throw new DataDirNotPrivateError(dataDir, reachable);
}
