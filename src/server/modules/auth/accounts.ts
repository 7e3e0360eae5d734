import { randomInt } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Tx } from "../../db/client";
import { users } from "../../db/schema/index";

const REFERRAL_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ";
const REFERRAL_LENGTH = 8;

/** Eight letters and digits a person can read aloud: no 0/O, no 1/I. */
export function newReferralCode(): string {
  return Array.from({ length: REFERRAL_LENGTH }, () => REFERRAL_ALPHABET[randomInt(REFERRAL_ALPHABET.length)]).join("");
}

/**
 * The user with this phone, created on first login. A `recommendCode` naming an existing user's
 * referral code records that user as the referrer, at creation only; any other value is ignored.
 */
export async function findOrCreateUser(
  tx: Tx,
  input: { phone: string; recommendCode?: string | null; now: Date },
): Promise<{ userId: number; created: boolean; disabled: boolean }> {
  const byPhone = async () => (await tx.select({ id: users.id, disabledAt: users.disabledAt }).from(users).where(eq(users.phone, input.phone)))[0];
  const existing = await byPhone();
  if (existing) return { userId: existing.id, created: false, disabled: existing.disabledAt !== null };
  const recommend = input.recommendCode?.trim();
  const referrer = recommend ? (await tx.select({ id: users.id }).from(users).where(eq(users.referralCode, recommend)))[0] : undefined;
  for (let attempt = 0; attempt < 5; attempt++) {
    const [created] = await tx
      .insert(users)
      .values({ phone: input.phone, referralCode: newReferralCode(), referredBy: referrer?.id ?? null, createdAt: input.now })
      .onConflictDoNothing()
      .returning({ id: users.id });
    if (created) return { userId: created.id, created: true, disabled: false };
    // Someone else created this phone meanwhile, or the referral code was taken: look, then draw again.
    const raced = await byPhone();
    if (raced) return { userId: raced.id, created: false, disabled: raced.disabledAt !== null };
  }
  throw new Error("could not allocate a unique referral code");
}
