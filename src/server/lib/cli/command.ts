import type { Clock } from "../../clock";
import type { AppConfig } from "../../config";
import type { Db } from "../../db/client";

export interface CliContext {
  db: Db;
  config: AppConfig;
  clock: Clock;
  /** One line of normal output (stdout). */
  out(line: string): void;
  /** One line of diagnostics (stderr). */
  err(line: string): void;
}

/** `tollgate admin <name…> [positionals] [--options]`: one operator action. */
export interface CliCommand {
  /** Words after `admin`, e.g. "codes create". */
  name: string;
  summary: string;
  usage: string;
  /** Whole command lines after `tollgate admin`, shown by `--help`: at least one. */
  examples: [string, ...string[]];
  /**
   * Option names and what each takes: a value (true), a number (`"number"`: a value never negative,
   * so `--count -2` is refused as such rather than taken by the parser for an option), or nothing (false: a flag).
   */
  options?: Record<string, boolean | "number">;
  /** Returns the process exit code. */
  run(ctx: CliContext, args: { positionals: string[]; options: Record<string, string | boolean | undefined> }): Promise<number>;
}

export class UsageError extends Error {}
