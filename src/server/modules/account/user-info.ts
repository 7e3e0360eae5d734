import { eq } from "drizzle-orm";
import { formatMoney } from "#shared/money";
import { maskPhone, type UserInfo } from "#shared/user";
import type { Db } from "../../db/client";
import { users } from "../../db/schema/index";

/** The user as /tools/user-info shows them, phone masked; null when there is no such user. */
export async function findUserInfo(db: Db, userId: number): Promise<UserInfo | null> {
  const [user] = await db.select().from(users).where(eq(users.id, userId));
  if (!user) return null;
  return {
    id: user.id,
    phone: maskPhone(user.phone),
    balance: formatMoney(user.balance),
    referralCode: user.referralCode,
    createdAt: user.createdAt.toISOString(),
  };
}
