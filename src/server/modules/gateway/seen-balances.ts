import { LRUCache } from "lru-cache";
import type { ChargeOutcome } from "./metering";

/**
 * Each user's balance as this process last saw it (from its own charges' outcomes), less the
 * holds of upstream calls it started before those holds committed. An upstream call may start
 * while its hold commits only when that balance covers the hold (decision 038); the hold itself,
 * committed in the database, still decides. A hold refused for the balance forgets the balance
 * seen, so the user's next calls wait for their holds until a charge shows it again.
 */
export class SeenBalances {
  private readonly balances = new LRUCache<number, bigint>({ max: 10_000 });
  /** Holds reserved and not yet committed or refused, by user: an entry only while some are. */
  private readonly reserved = new Map<number, bigint>();

  /** Reserves `amount` against the balance seen; false when none was seen or it does not cover the amount. */
  reserve(userId: number, amount: bigint): boolean {
    const balance = this.balances.get(userId);
    const reserved = this.reserved.get(userId) ?? 0n;
    if (balance === undefined || balance - reserved < amount) return false;
    this.reserved.set(userId, reserved + amount);
    return true;
  }

  /** A charge's outcome, with what `reserve` set aside for it (0 when it was not reserved). */
  record(userId: number, reserved: bigint, outcome: ChargeOutcome): void {
    this.release(userId, reserved);
    if (outcome.ok) this.balances.set(userId, outcome.balance);
    else if (outcome.reason === "insufficient_balance") this.balances.delete(userId);
  }

  /** Gives back what `reserve` set aside for a hold that will not be recorded (its write failed). */
  release(userId: number, reserved: bigint): void {
    if (reserved === 0n) return;
    const left = (this.reserved.get(userId) ?? 0n) - reserved;
    if (left > 0n) this.reserved.set(userId, left);
    else this.reserved.delete(userId);
  }
}
