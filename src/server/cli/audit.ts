import os from "node:os";
import { desc } from "drizzle-orm";
import { API_KEY_PREFIX, API_KEY_RANDOM_LENGTH, maskApiKey } from "#shared/api-keys";
import { beijingDateTime } from "#shared/beijing-time";
import { normalizeRedemptionCode } from "#shared/redemption-code";
import type { Db } from "../db/client";
import { operatorAudit } from "../db/schema/index";
import { parseCount } from "../lib/cli/args";
import type { CliCommand } from "../lib/cli/command";
import { printRecords } from "../lib/cli/records";
import { maskedCode } from "../modules/redemption/codes";

/** An API key anywhere in a word: pasted with `Bearer `, quotes or spaces around it, or run into other text. */
const API_KEY_IN_TEXT = new RegExp(`${API_KEY_PREFIX}[A-Za-z0-9_-]{${API_KEY_RANDOM_LENGTH},}`, "g");
/** Where a word splits into parts that could each be a redemption code ("code: K7PQ-…"). */
const AROUND_A_CODE = /([\s:=,;.!?"'()[\]<>]+)/;

/**
 * A word as the audit log keeps it: an API key or a redemption code an operator pasted (to find
 * its owner, to void it) is a secret, kept as the console masks it, wherever it stands in the word.
 */
function withoutSecrets(word: string): string {
  const keysMasked = word.replace(API_KEY_IN_TEXT, (key) => maskApiKey(API_KEY_PREFIX, key.slice(-4)));
  const masked = (part: string) => {
    const code = normalizeRedemptionCode(part);
    return code ? maskedCode(code.slice(-4)) : part;
  };
  const whole = masked(keysMasked);
  return whole !== keysMasked ? whole : keysMasked.split(AROUND_A_CODE).map(masked).join("");
}

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
  await db.insert(operatorAudit).values({ ...run, argv: run.argv.map(withoutSecrets), hostUser: operator.hostUser, host: operator.host });
}

export const auditCommand: CliCommand = {
  name: "audit",
  summary: "the operator audit log: every admin command run, newest first (who, when, from where, exit code)",
  usage: "audit [--limit 50] [--json]",
  examples: ["audit", "audit --limit 500 --json"],
  options: { limit: true, json: false },
  async run(ctx, { options }) {
    const limit = options.limit === undefined ? 50 : parseCount(options.limit, "--limit", 1, 10_000);
    const rows = await ctx.db.select().from(operatorAudit).orderBy(desc(operatorAudit.at), desc(operatorAudit.id)).limit(limit);
    printRecords(ctx, rows, {
      json: options.json === true,
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
