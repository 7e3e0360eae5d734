import os from "node:os";
import { desc } from "drizzle-orm";
import { beijingDateTime } from "#shared/beijing-time";
import type { Db } from "../db/client";
import { operatorAudit } from "../db/schema/index";
import { parseCount } from "../lib/cli/args";
import type { CliCommand } from "../lib/cli/command";
import { printRecords } from "../lib/cli/records";
import { argvWithoutSecrets } from "./secrets";

/** Who ran a command: the account on the host, and the person behind sudo when there is one. */
export interface Operator {
  hostUser: string;
  host: string;
}

/**
 * This process's operator. Run through sudo (the deployment's `sudo systemd-run --uid=tollgate
 * --setenv=SUDO_USER …`), every operator is the service account: SUDO_USER names the person.
 */
export function invokingOperator(): Operator {
  const account = os.userInfo().username;
  const person = process.env.SUDO_USER;
  return { hostUser: person && person !== account ? `${person} (sudo as ${account})` : account, host: os.hostname() };
}

/** Writes one run of a command to the operator audit log, as the operator who ran it. */
export async function recordCommand(db: Db, entry: { at: Date; command: string; argv: string[]; exitCode: number; operator: Operator }): Promise<void> {
  const { operator, ...run } = entry;
  await db.insert(operatorAudit).values({ ...run, argv: argvWithoutSecrets(run.argv), hostUser: operator.hostUser, host: operator.host });
}

export const auditCommand: CliCommand = {
  name: "audit",
  summary: "the operator audit log: every admin command run, newest first (who, when, from where, exit code)",
  usage: "audit [--limit 50] [--json]",
  examples: ["audit", "audit --limit 500 --json"],
  options: { limit: "number", json: false },
  async run(ctx, { options }) {
    const limit = options.limit === undefined ? 50 : parseCount(options.limit, "--limit", 1, 10_000);
    const rows = await ctx.db.select().from(operatorAudit).orderBy(desc(operatorAudit.at), desc(operatorAudit.id)).limit(limit);
    printRecords(ctx, rows, {
      json: options.json === true,
      empty: "the operator audit log is empty: no admin command has run yet",
      toJson: (r) => ({ id: r.id, at: r.at.toISOString(), hostUser: r.hostUser, host: r.host, command: r.command, argv: r.argv, exitCode: r.exitCode }),
      columns: [
        { header: "AT", value: (r) => beijingDateTime(r.at) },
        { header: "WHO", value: (r) => `${r.hostUser}@${r.host}` },
        { header: "EXIT", value: (r) => String(r.exitCode) },
        { header: "COMMAND", value: (r) => r.argv.map((word) => (/^[\w./:@+,=-]+$/.test(word) ? word : JSON.stringify(word))).join(" ") },
      ],
    });
    return 0;
  },
};
