import { eq } from "drizzle-orm";
import { normalizePhone } from "#shared/phone";
import type { Db } from "../../db/client";
import { users } from "../../db/schema/index";
import { UsageError, type CliContext } from "./command";

/** The user a command names by phone number or by id; null when there is none. */
export async function findUser(db: Db, who: string) {
  const phone = normalizePhone(who);
  if (phone) {
    const [user] = await db.select().from(users).where(eq(users.phone, phone));
    if (user) return user;
  }
  if (/^\d{1,15}$/.test(who)) {
    const [user] = await db.select().from(users).where(eq(users.id, Number(who)));
    if (user) return user;
  }
  return null;
}

/**
 * The one user a command's single positional names (phone or id); says so on stderr and gives null
 * when there is none. Words that are neither a phone number nor an id (a key, a name, a typo) can
 * name no user: a usage error (exit 64), as `users find` answers them, not "no such user" (exit 1),
 * which a script would take for an answer about a user.
 */
export async function userNamed(ctx: CliContext, positionals: string[]) {
  const [who, ...extra] = positionals;
  if (!who || extra.length > 0) throw new UsageError("give one user: a phone number or a user id");
  if (!normalizePhone(who) && !/^\d{1,15}$/.test(who)) {
    throw new UsageError(`"${who}" names no user: give a phone number or a user id (users find also takes 4 or more digits of a phone, an API key or a masked key)`);
  }
  const user = await findUser(ctx.db, who);
  if (!user) ctx.err(`no user with phone or id "${who}"`);
  return user;
}
