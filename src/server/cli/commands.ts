import type { CliCommand } from "./command";

/** Every `tollgate admin` command. Features add theirs here. */
export const COMMANDS: CliCommand[] = [];
