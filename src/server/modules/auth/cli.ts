import { and, desc, eq, gt, isNull } from "drizzle-orm";
import { beijingDateTime } from "#shared/beijing-time";
import { escapeUnprintable } from "#shared/text";
import { maskPhone } from "#shared/user";
import { userNamed } from "../../lib/cli/user-argument";
import type { CliCommand } from "../../lib/cli/command";
import { printRecords } from "../../lib/cli/records";
import { sessions } from "../../db/schema/index";
import { revokeAllSessions } from "./sessions";
import { counted } from "../../lib/cli/counted";

export const sessionsListCommand: CliCommand = {
  name: "sessions list",
  summary: "list a user's live sessions: id, created, expires, IP, user agent",
  usage: "sessions list <phone|user-id> [--json]",
  examples: ["sessions list 13800138000", "sessions list 42 --json"],
  options: { json: false },
  async run(ctx, { positionals, options }) {
    const user = await userNamed(ctx, positionals);
    if (!user) return 1;
    const now = ctx.clock.now();
    const rows = await ctx.db
      .select()
      .from(sessions)
      .where(and(eq(sessions.userId, user.id), isNull(sessions.revokedAt), gt(sessions.expiresAt, now)))
      .orderBy(desc(sessions.createdAt), desc(sessions.id));
    printRecords(ctx, rows, {
      json: options.json === true,
      toJson: (s) => ({ id: s.id, createdAt: s.createdAt.toISOString(), expiresAt: s.expiresAt.toISOString(), ip: s.ip, userAgent: s.userAgent }),
      columns: [
        { header: "ID", value: (s) => String(s.id) },
        { header: "CREATED", value: (s) => beijingDateTime(s.createdAt) },
        { header: "EXPIRES", value: (s) => beijingDateTime(s.expiresAt) },
        { header: "IP", value: (s) => s.ip ?? "-" },
        { header: "USER AGENT", value: (s) => escapeUnprintable(s.userAgent ?? "-") },
      ],
    });
    if (options.json !== true) ctx.err(`${counted(rows.length, "live session")} of user ${user.id} (${maskPhone(user.phone)})`);
    return 0;
  },
};

export const sessionsRevokeCommand: CliCommand = {
  name: "sessions revoke",
  summary: "end every live session of a user at once (the user must log in again)",
  usage: "sessions revoke <phone|user-id>",
  examples: ["sessions revoke 13800138000"],
  async run(ctx, { positionals }) {
    const user = await userNamed(ctx, positionals);
    if (!user) return 1;
    const ended = await revokeAllSessions(ctx.db, user.id, ctx.clock.now());
    ctx.out(`ended ${counted(ended, "session")} of user ${user.id} (${maskPhone(user.phone)})`);
    return 0;
  },
};
