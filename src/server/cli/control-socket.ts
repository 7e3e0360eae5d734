import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import readline from "node:readline";
import type { FastifyInstance } from "fastify";
import { invokingOperator, type Operator } from "./audit";
import { runCli } from "./run";

/**
 * The embedded database (PGlite) belongs to one process, so while the server runs, `tollgate
 * admin …` sends its arguments to the server over a unix socket in DATA_DIR (owner-only) and the
 * server runs the command against its own database. One JSON line in (`{"argv": […], "operator":
 * {"hostUser", "host"}}`, recorded in the audit log as who ran it); JSON lines out:
 * `{"out": line}`, `{"err": line}`, then `{"exit": code}`.
 */
export function controlSocketPath(dataDir: string): string {
  return path.join(dataDir, "admin.sock");
}

/**
 * The operator the CLI says it runs for. Only the server's own account (or root) can open the
 * socket, and either could write the database itself, so its word is taken; absent, the server's.
 */
function readOperator(value: unknown): Operator | undefined | null {
  if (value === undefined) return undefined;
  const { hostUser, host } = (value ?? {}) as Partial<Record<keyof Operator, unknown>>;
  const ok = (text: unknown): text is string => typeof text === "string" && text.length > 0 && text.length <= 200;
  return ok(hostUser) && ok(host) ? { hostUser, host } : null;
}

/** Whether a running server answers on DATA_DIR's admin socket (a socket left by one that stopped does not). */
export function serverAnswersAt(dataDir: string): Promise<boolean> {
  const socketPath = controlSocketPath(dataDir);
  if (!fs.existsSync(socketPath)) return Promise.resolve(false);
  return new Promise((resolve) => {
    const socket = net.connect(socketPath);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

export async function startControlSocket(app: FastifyInstance): Promise<() => Promise<void>> {
  const socketPath = controlSocketPath(app.config.dataDir);
  fs.mkdirSync(app.config.dataDir, { recursive: true });
  fs.rmSync(socketPath, { force: true });
  const server = net.createServer((socket) => {
    const send = (message: object) => socket.write(`${JSON.stringify(message)}\n`);
    const lines = readline.createInterface({ input: socket });
    const gone = (error: Error) => app.log.debug({ err: error }, "an admin command's connection broke");
    lines.on("error", gone);
    lines.once("line", (line) => {
      lines.close();
      let request: { argv?: unknown; operator?: unknown } = {};
      try {
        request = JSON.parse(line) as typeof request;
      } catch {
        request = {};
      }
      const { argv } = request;
      const operator = readOperator(request.operator);
      if (!Array.isArray(argv) || !argv.every((a) => typeof a === "string") || operator === null) {
        send({ err: "malformed request" });
        send({ exit: 64 });
        return void socket.end();
      }
      runCli(argv, {
        database: app.database,
        config: app.config,
        clock: app.clock,
        operator,
        out: (text) => send({ out: text }),
        err: (text) => send({ err: text }),
      }).then(
        (exit) => {
          send({ exit });
          socket.end();
        },
        (error: unknown) => {
          send({ err: `error: ${(error as Error).message}` });
          send({ exit: 1 });
          socket.end();
        },
      );
    });
    socket.on("error", gone);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });
  fs.chmodSync(socketPath, 0o600);
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      fs.rmSync(socketPath, { force: true });
    });
}

/**
 * Runs the command through a running server's socket. Resolves to null when no server answers
 * there (none running, or a socket left by one that stopped), so the caller opens the database itself.
 */
export function runViaControlSocket(
  dataDir: string,
  argv: string[],
  io: { out(line: string): void; err(line: string): void },
  operator: Operator = invokingOperator(),
): Promise<number | null> {
  const socketPath = controlSocketPath(dataDir);
  if (!fs.existsSync(socketPath)) return Promise.resolve(null);
  return new Promise((resolve) => {
    const socket = net.connect(socketPath);
    let exit: number | null = null;
    let connected = false;
    socket.on("connect", () => {
      connected = true;
      socket.write(`${JSON.stringify({ argv, operator })}\n`);
    });
    /** Before connecting, the caller runs the command itself; after, the server's connection broke mid-command. */
    let broke = false;
    const broken = (error: Error) => {
      if (connected && !broke) io.err(`the running server's admin connection broke: ${error.message}`);
      broke = true;
      resolve(connected ? 1 : null);
    };
    const lines = readline.createInterface({ input: socket });
    lines.on("error", broken);
    lines.on("line", (line) => {
      const message = JSON.parse(line) as { out?: string; err?: string; exit?: number };
      if (message.out !== undefined) io.out(message.out);
      if (message.err !== undefined) io.err(message.err);
      if (message.exit !== undefined) exit = message.exit;
    });
    socket.on("error", broken);
    socket.on("close", () => {
      if (connected && exit === null && !broke) io.err("the running server closed the admin connection before the command finished");
      resolve(connected ? (exit ?? 1) : null);
    });
  });
}
