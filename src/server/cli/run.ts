import { parseArgs } from "node:util";
import { escapeUnprintable } from "#shared/text";
import { systemClock, type Clock } from "../clock";
import type { AppConfig } from "../config";
import type { Database } from "../db/client";
import { UsageError, type CliCommand, type CliContext } from "./command";
import { COMMANDS } from "./commands";

function help(commands: CliCommand[]): string {
  return ["usage: tollgate admin <command> [arguments]", "", ...commands.map((c) => `  ${c.usage.padEnd(60)} ${c.summary}`)].join("\n");
}

/** Finds the command whose name matches the longest run of leading words. */
function resolve(words: string[], commands: CliCommand[]): { command: CliCommand; rest: string[] } | null {
  for (let n = Math.min(words.length, 3); n > 0; n--) {
    const name = words.slice(0, n).join(" ");
    const command = commands.find((c) => c.name === name);
    if (command) return { command, rest: words.slice(n) };
  }
  return null;
}

/** The database's own error (with its SQLSTATE), wherever the driver or drizzle put it. */
function databaseError(error: unknown): { code: string; message: string } | null {
  for (let e = error; e && typeof e === "object"; e = (e as { cause?: unknown }).cause) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return { code, message: String(message) };
  }
  return null;
}

/** What the operator reads when a command fails: a sentence, never a statement with its parameters. */
function describeFailure(error: unknown): string {
  const db = databaseError(error);
  if (!db) return (error as Error).message;
  if (db.code === "22003") return "the result is out of range for the database (an amount or balance too large): nothing was changed";
  return `the database refused the command (${db.code}: ${db.message}): nothing was changed`;
}

/**
 * Whatever a command prints may hold what users typed: its line breaks and column tabs stay, every
 * other control character is escaped, so no text can move the cursor, clear or hide the screen, or
 * forge a line.
 */
function printable(write: (line: string) => void): (line: string) => void {
  return (line) => write(line.split("\n").map((row) => row.split("\t").map(escapeUnprintable).join("\t")).join("\n"));
}

/** Runs `tollgate <argv>` against an open database; returns the exit code. */
export async function runCli(
  argv: string[],
  deps: { database: Database; config: AppConfig; clock?: Clock; out?: (line: string) => void; err?: (line: string) => void },
  commands: CliCommand[] = COMMANDS,
): Promise<number> {
  const out = printable(deps.out ?? ((line: string) => process.stdout.write(`${line}\n`)));
  const err = printable(deps.err ?? ((line: string) => process.stderr.write(`${line}\n`)));
  if (argv[0] !== "admin" || argv.length < 2 || argv.includes("--help")) {
    (argv.includes("--help") ? out : err)(help(commands));
    return argv.includes("--help") ? 0 : 64;
  }
  const words = argv.slice(1);
  const firstOption = words.findIndex((w) => w.startsWith("--"));
  const head = firstOption === -1 ? words : words.slice(0, firstOption);
  const found = resolve(head, commands);
  if (!found) {
    err(`unknown command: ${head.join(" ")}\n\n${help(commands)}`);
    return 64;
  }
  const { command } = found;
  const rest = words.slice(head.length - found.rest.length);
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      allowPositionals: true,
      strict: true,
      options: Object.fromEntries(
        Object.entries(command.options ?? {}).map(([name, takesValue]) => [name, { type: takesValue ? "string" : "boolean" }]),
      ) as Record<string, { type: "string" | "boolean" }>,
    });
  } catch (error) {
    err(`${(error as Error).message}\nusage: tollgate admin ${command.usage}`);
    return 64;
  }
  const ctx: CliContext = { db: deps.database.db, config: deps.config, clock: deps.clock ?? systemClock, out, err };
  try {
    return await command.run(ctx, { positionals: parsed.positionals, options: parsed.values });
  } catch (error) {
    if (error instanceof UsageError) {
      err(`${error.message}\nusage: tollgate admin ${command.usage}`);
      return 64;
    }
    err(`error: ${describeFailure(error)}`);
    return 1;
  }
}
