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

/** The one user a command's single positional names (phone or id); says so on stderr and gives null when there is none. */
export async function userNamed(ctx: CliContext, positionals: string[]) {
  const [who, ...extra] = positionals;
  if (!who || extra.length > 0) throw new UsageError("give one user: a phone number or a user id");
  const user = await findUser(ctx.db, who);
  if (!user) ctx.err(`no user with phone or id "${who}"`);
  return user;
}
