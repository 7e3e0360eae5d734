import { count, eq } from "drizzle-orm";
import type { Referrals } from "#shared/account";
import type { Db } from "../../db/client";
import { users } from "../../db/schema/index";

/** The user's referral code, its link under the public URL and how many users signed up through it; null when there is no such user. */
export async function referralsOf(db: Db, input: { userId: number; publicUrl: string }): Promise<Referrals | null> {
  const [user] = await db.select({ code: users.referralCode }).from(users).where(eq(users.id, input.userId));
  if (!user) return null;
  const [signups] = await db.select({ n: count() }).from(users).where(eq(users.referredBy, input.userId));
  return { code: user.code, link: `${input.publicUrl}/?r=${encodeURIComponent(user.code)}`, signups: signups?.n ?? 0 };
}
