import { sql } from "drizzle-orm";
import { maskPhone } from "#shared/user";
import { queryRows } from "../../db/client";
import type { Counting } from "../../lib/counters";
import { credit, type DbOrTx, type LedgerMove, type LedgerPosted } from "./ledger";

/** Money the user paid for (a payment or a redemption code), as opposed to operator adjustments or bonuses. */
export type TopUp = Omit<LedgerMove, "kind"> & { kind: "topup" | "redemption" };

export interface TopUpOptions {
  /** Share of a referred user's first top-up credited to the referrer, in basis points (0 = off). */
  referralBonusBasisPoints: number;
}

export interface TopUpResult {
  posted: LedgerPosted;
  referralBonus: { referrerId: number; amount: bigint } | null;
}

/**
 * Credits a top-up and, when it is the user's first one and they were referred, pays the
 * referrer the configured share, keyed `referral:<user>` so it can happen only once. Call it
 * inside the transaction that records why the money arrived.
 */
export async function recordTopUp(tx: DbOrTx, topUp: TopUp, options: TopUpOptions): Promise<TopUpResult> {
  const posted = await credit(tx, topUp);
  if (posted.replayed || options.referralBonusBasisPoints <= 0) return { posted, referralBonus: null };
  // credit() holds this user's row lock, so two first top-ups cannot both count as the first.
  const [user] = await queryRows<{ referred_by: string | null; phone: string; top_ups: string }>(
    tx,
    sql`select referred_by::text, phone,
               (select count(*) from ledger_entries where user_id = ${topUp.userId} and kind in ('topup', 'redemption'))::text as top_ups
        from users where id = ${topUp.userId}`,
  );
  if (!user?.referred_by || user.top_ups !== "1") return { posted, referralBonus: null };
  const amount = (topUp.amount * BigInt(options.referralBonusBasisPoints)) / 10_000n;
  if (amount <= 0n) return { posted, referralBonus: null };
  const referrerId = Number(user.referred_by);
  await credit(tx, {
    userId: referrerId,
    amount,
    kind: "referral_bonus",
    method: "referral_bonus",
    reference: `first top-up of ${maskPhone(user.phone)}`,
    idempotencyKey: `referral:${topUp.userId}`,
    at: topUp.at,
  });
  return { posted, referralBonus: { referrerId, amount } };
}

/** Counts a committed top-up by its channel, and the referral bonus it paid, in the metrics. */
export function countTopUp(metrics: Counting, channel: string, amount: bigint, referralBonus: bigint | null): void {
  metrics.count("topUps", { channel });
  metrics.count("topUpMicros", { channel }, amount);
  if (referralBonus === null) return;
  metrics.count("referralBonuses", { channel });
  metrics.count("referralBonusMicros", { channel }, referralBonus);
}
