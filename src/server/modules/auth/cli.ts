import { and, desc, eq, gt, isNull } from "drizzle-orm";
import { maskPhone } from "#shared/user";
import { userNamed } from "../../cli/args";
import type { CliCommand } from "../../cli/command";
import { sessions } from "../../db/schema/index";
import { revokeAllSessions } from "./sessions";

export const sessionsListCommand: CliCommand = {
  name: "sessions list",
  summary: "list a user's live sessions: id, created, expires, IP, user agent",
  usage: "sessions list <phone|user-id>",
  async run(ctx, { positionals }) {
    const user = await userNamed(ctx, positionals);
    if (!user) return 1;
    const now = ctx.clock.now();
    const rows = await ctx.db
      .select()
      .from(sessions)
      .where(and(eq(sessions.userId, user.id), isNull(sessions.revokedAt), gt(sessions.expiresAt, now)))
      .orderBy(desc(sessions.createdAt), desc(sessions.id));
    for (const s of rows) {
      ctx.out([s.id, s.createdAt.toISOString(), s.expiresAt.toISOString(), s.ip ?? "-", JSON.stringify(s.userAgent ?? "")].join("\t"));
    }
    ctx.err(`${rows.length} live session${rows.length === 1 ? "" : "s"} of user ${user.id} (${maskPhone(user.phone)})`);
    return 0;
  },
};

export const sessionsRevokeCommand: CliCommand = {
  name: "sessions revoke",
  summary: "end every live session of a user at once (the user must log in again)",
  usage: "sessions revoke <phone|user-id>",
  async run(ctx, { positionals }) {
    const user = await userNamed(ctx, positionals);
    if (!user) return 1;
    const ended = await revokeAllSessions(ctx.db, user.id, ctx.clock.now());
    ctx.out(`ended ${ended} session${ended === 1 ? "" : "s"} of user ${user.id} (${maskPhone(user.phone)})`);
    return 0;
  },
};
