import type { Clock } from "../clock";
import type { AppConfig } from "../config";
import type { Database } from "../db/client";
import { runCli } from "../cli/run";

/** `tollgate admin …` against a test's database, its output captured: `cli("users", "show", "42")`. */
export function adminCli(t: { database: Database; config: AppConfig; clock: Clock }) {
  return async (...argv: string[]): Promise<{ code: number; out: string; err: string }> => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(["admin", ...argv], { database: t.database, config: t.config, clock: t.clock, out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out: out.join("\n"), err: err.join("\n") };
  };
}
