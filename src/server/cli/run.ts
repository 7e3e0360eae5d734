import { parseArgs } from "node:util";
import { escapeUnprintable } from "#shared/text";
import { systemClock, type Clock } from "../clock";
import type { AppConfig } from "../config";
import type { Database } from "../db/client";
import { article } from "../lib/cli/args";
import { UsageError, type CliCommand, type CliContext } from "../lib/cli/command";
import { CatalogError } from "../modules/catalog/catalog-file";
import { maskSecrets } from "./secrets";
import { invokingOperator, recordCommand, type Operator } from "./audit";
import { COMMANDS } from "./commands";

/** The width help is wrapped to: a terminal's 80 columns and then some, as most are wider. */
const HELP_WIDTH = 100;

/** Words into lines of at most `width` characters (a longer word stays whole). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const word of text.split(" ")) {
    const last = lines.at(-1);
    if (last !== undefined && last.length + 1 + word.length <= width) lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  return lines;
}

function commandList(commands: CliCommand[]): string[] {
  const width = Math.max(...commands.map((c) => c.name.length));
  return commands.map((c) => `  ${c.name.padEnd(width)}  ${wrap(c.summary, HELP_WIDTH - width - 4).join(`\n${" ".repeat(width + 4)}`)}`);
}

function help(commands: CliCommand[]): string {
  const group = (c: CliCommand) => c.name.split(" ")[0];
  // The first example of each group of commands (`codes …`, `users …`).
  const examples = commands.filter((c, i) => i === 0 || group(c) !== group(commands[i - 1]!)).map((c) => c.examples[0]);
  return [
    "usage: tollgate admin <command> [arguments]",
    "",
    "commands:",
    ...commandList(commands),
    "",
    "examples:",
    ...examples.map((e) => `  tollgate admin ${e}`),
    "",
    "tollgate admin <command> --help shows a command's arguments and examples.",
    "Commands that print records take --json (one JSON document); times are Beijing time (+08:00).",
  ].join("\n");
}

/** The commands of a group (`packages`: `packages grant`, `packages list`, …): their usages and every example. */
function groupHelp(name: string, members: CliCommand[]): string {
  return [
    `usage: tollgate admin ${name} <command> [arguments]`,
    "",
    "commands:",
    ...commandList(members),
    "",
    "usages:",
    ...members.map((c) => `  tollgate admin ${c.usage}`),
    "",
    "examples:",
    ...members.flatMap((c) => c.examples.map((e) => `  tollgate admin ${e}`)),
    "",
    `tollgate admin ${name} <command> --help shows one command's arguments and examples.`,
  ].join("\n");
}

/** The commands whose names start with these words as a group (`packages`), or none. */
function groupOf(words: string[], commands: CliCommand[]): CliCommand[] {
  if (words.length === 0) return [];
  const prefix = `${words.join(" ")} `;
  return commands.filter((c) => c.name.startsWith(prefix));
}

/** The longest run of leading words (fewer than all of them) that names a group, with its commands. */
function enclosingGroup(words: string[], commands: CliCommand[]): { name: string; members: CliCommand[] } | null {
  for (let n = words.length - 1; n > 0; n--) {
    const members = groupOf(words.slice(0, n), commands);
    if (members.length > 0) return { name: words.slice(0, n).join(" "), members };
  }
  return null;
}

function commandHelp(command: CliCommand): string {
  return [`usage: tollgate admin ${command.usage}`, "", ...wrap(command.summary, HELP_WIDTH), "", "examples:", ...command.examples.map((e) => `  tollgate admin ${e}`)].join("\n");
}

/** A word that parseArgs would take for an option but is a negative number: amounts, counts and ids are never negative. */
const NEGATIVE_NUMBER = /^-\d/;

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

/** The words before the first option: a command's name, then its positionals. */
function headOf(argv: string[]): string[] {
  const words = argv.slice(1);
  const firstOption = words.findIndex((w) => w.startsWith("-"));
  return firstOption === -1 ? words : words.slice(0, firstOption);
}

/**
 * What `tollgate <argv>` prints when it runs no command (help asked for, or no command named), with
 * its exit code; null when it names a command to run. Needs no database, so the CLI answers it where
 * there is none.
 */
export function helpAnswer(argv: string[], commands: CliCommand[] = COMMANDS): { text: string; code: number; stream: "out" | "err" } | null {
  const asksHelp = argv.includes("--help") || argv.includes("-h");
  const head = headOf(argv);
  const found = argv[0] === "admin" ? resolve(head, commands) : null;
  if (found && asksHelp) return { text: commandHelp(found.command), code: 0, stream: "out" };
  const group = argv[0] === "admin" && !found ? groupOf(head, commands) : [];
  if (group.length > 0) {
    const name = head.join(" ");
    return asksHelp ? { text: groupHelp(name, group), code: 0, stream: "out" } : { text: `${name}: give one of its commands\n\n${groupHelp(name, group)}`, code: 64, stream: "err" };
  }
  // An unknown command of a known group (`packages nosuch`) is answered with that group's help.
  const known = argv[0] === "admin" && !found ? enclosingGroup(head, commands) : null;
  const helpText = known ? groupHelp(known.name, known.members) : help(commands);
  if (argv[0] !== "admin" || argv.length < 2 || asksHelp) return { text: helpText, code: asksHelp ? 0 : 64, stream: asksHelp ? "out" : "err" };
  const unknown = known ? head.slice(0, known.name.split(" ").length + 1) : head;
  if (!found) return { text: `unknown command: ${maskSecrets(unknown.join(" "))}\n\n${helpText}`, code: 64, stream: "err" };
  return null;
}

/** Runs `tollgate <argv>` against an open database; returns the exit code. */
export async function runCli(
  argv: string[],
  deps: { database: Database; config: AppConfig; clock?: Clock; out?: (line: string) => void; err?: (line: string) => void; operator?: Operator },
  commands: CliCommand[] = COMMANDS,
): Promise<number> {
  const out = printable(deps.out ?? ((line: string) => process.stdout.write(`${line}\n`)));
  const err = printable(deps.err ?? ((line: string) => process.stderr.write(`${line}\n`)));
  const answer = helpAnswer(argv, commands);
  if (answer) {
    (answer.stream === "out" ? out : err)(answer.text);
    return answer.code;
  }
  const words = argv.slice(1);
  const head = headOf(argv);
  const found = resolve(head, commands)!;
  const { command } = found;
  const rest = words.slice(head.length - found.rest.length);
  const clock = deps.clock ?? systemClock;
  const startedAt = clock.now();
  // What a command says on stderr (often kept by journald) repeats no key or code the operator typed.
  const code = await runCommand(command, rest, { db: deps.database.db, config: deps.config, clock, out, err: (line) => err(maskSecrets(line)) });
  await recordCommand(deps.database.db, { at: startedAt, command: command.name, argv: words, exitCode: code, operator: deps.operator ?? invokingOperator() }).catch((error: unknown) =>
    err(`warning: the command ran, but could not be written to the operator audit log: ${describeFailure(error)}`),
  );
  return code;
}

/** The names of a command's positionals as its usage writes them, in order: `lot-id`, `phone|user-id`, `amount`. */
function positionalNames(command: CliCommand): string[] {
  const words = command.usage.slice(command.name.length);
  const end = words.search(/\s(\[|--)/);
  return [...(end === -1 ? words : words.slice(0, end)).matchAll(/<([^>]+)>/g)].map((m) => m[1]!);
}

/** What the operator reads for a negative number: where an id was asked for, that ids are never negative. */
function negativeMessage(command: CliCommand, word: string, positional: number): string {
  // Of the ways a positional may be written (`phone|digits|user-id|key|tg_…wxyz`), the ones a number can be.
  const ways = positionalNames(command)[positional]?.split("|") ?? [];
  if (ways.some((way) => /(^|-)id$/.test(way))) {
    const words = ways.filter((way) => way === "phone" || /(^|-)id$/.test(way)).join(" or ").replace(/-/g, " ");
    return `"${word}": ${article(words)} ${words} is never negative`;
  }
  const instead = command.name === "credit" ? ": to take money off a balance, use `tollgate admin debit`" : "";
  return `"${word}": amounts and counts are never negative${instead}`;
}

/**
 * What the operator reads when parseArgs refuses the options: an unknown option named with the command
 * and where its help is (parseArgs' own text advises `-- "--bogus"`, which no command wants).
 */
function optionProblem(command: CliCommand, error: Error & { code?: string }): string {
  const option = /^Unknown option '([^']+)'/.exec(error.message)?.[1];
  if (error.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && option) return `unknown option ${option} for "${command.name}"; see tollgate admin ${command.name} --help`;
  return error.message;
}

/** Parses a resolved command's arguments and runs it; returns its exit code. */
async function runCommand(command: CliCommand, rest: string[], ctx: CliContext): Promise<number> {
  const { err } = ctx;
  const valued = (option: boolean | "number" | undefined) => option === true || option === "number";
  const optionIn = (word: string | undefined) => (word?.startsWith("--") && !word.includes("=") ? command.options?.[word.slice(2)] : undefined);
  const takesValue = (word: string | undefined) => valued(optionIn(word));
  const negativeAt = rest.findIndex((word, i) => NEGATIVE_NUMBER.test(word) && !takesValue(rest[i - 1]));
  if (negativeAt !== -1) {
    // Its place among the positionals: the words before it that are neither options nor their values.
    const positional = rest.slice(0, negativeAt).filter((word, i) => !word.startsWith("-") && !takesValue(rest[i - 1])).length;
    err(`${negativeMessage(command, rest[negativeAt]!, positional)}\nusage: tollgate admin ${command.usage}`);
    return 64;
  }
  // A negative number given to a numeric option (`--amount -5`, `--limit -1`): parseArgs would call it
  // an ambiguous argument and advise `--amount=-XYZ`, which no command takes either.
  const negativeValueAt = rest.findIndex((word, i) => NEGATIVE_NUMBER.test(word) && optionIn(rest[i - 1]) === "number");
  if (negativeValueAt !== -1) {
    err(`${rest[negativeValueAt - 1]}: "${rest[negativeValueAt]}": amounts and counts are never negative\nusage: tollgate admin ${command.usage}`);
    return 64;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      allowPositionals: true,
      strict: true,
      tokens: true,
      options: Object.fromEntries(
        Object.entries(command.options ?? {}).map(([name, takesValue]) => [name, { type: takesValue ? "string" : "boolean" }]),
      ) as Record<string, { type: "string" | "boolean" }>,
    });
  } catch (error) {
    err(`${optionProblem(command, error as Error & { code?: string })}\nusage: tollgate admin ${command.usage}`);
    return 64;
  }
  // An option given twice (`--reason a --reason b`, a key pasted over another) would count only its last
  // value, silently: which one the operator meant is theirs to say.
  const given = parsed.tokens.filter((token) => token.kind === "option" && valued(command.options?.[token.name])).map((token) => (token as { name: string }).name);
  const repeated = given.find((name, i) => given.indexOf(name) !== i);
  if (repeated !== undefined) {
    err(`--${repeated} is given more than once: give it once\nusage: tollgate admin ${command.usage}`);
    return 64;
  }
  // A command whose usage names no positional takes none: a stray word (`ledger verify now`) is refused,
  // not ignored, so the operator never believes it narrowed or changed what ran.
  const stray = positionalNames(command).length === 0 ? parsed.positionals[0] : undefined;
  if (stray !== undefined) {
    err(`unexpected "${stray}"\nusage: tollgate admin ${command.usage}`);
    return 64;
  }
  try {
    return await command.run(ctx, { positionals: parsed.positionals, options: parsed.values });
  } catch (error) {
    if (error instanceof UsageError) {
      err(`${error.message}\nusage: tollgate admin ${command.usage}`);
      return 64;
    }
    // The tool catalog is configuration: a mistake in it is said as the server says it, with the code
    // an invalid configuration exits with, not as a failure of the command.
    if (error instanceof CatalogError) {
      err(error.message);
      return 78;
    }
    err(`error: ${describeFailure(error)}`);
    return 1;
  }
}
