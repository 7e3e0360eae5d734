import { LRUCache } from "lru-cache";
import type { ChargeOutcome } from "./metering";

/**
 * Each user's balance as this process last saw it (from its own charges' outcomes), less the
 * holds of upstream calls it started before those holds committed. An upstream call may start
 * while its hold commits only when that balance covers the hold (decision 038); the hold itself,
 * committed in the database, still decides. A refused hold forgets the user, so the next calls wait
 * for their holds until a charge shows the balance again.
 */
export class SeenBalances {
  private readonly users = new LRUCache<number, { balance: bigint; reserved: bigint }>({ max: 10_000 });

  /** Reserves `amount` against the balance seen; false when none was seen or it does not cover the amount. */
  reserve(userId: number, amount: bigint): boolean {
    const seen = this.users.get(userId);
    if (!seen || seen.balance - seen.reserved < amount) return false;
    seen.reserved += amount;
    return true;
  }

  /** A hold's outcome, with what `reserve` set aside for it (0 when it was not reserved). */
  record(userId: number, reserved: bigint, outcome: ChargeOutcome): void {
    const seen = this.users.get(userId);
    if (!outcome.ok) {
      this.users.delete(userId);
      return;
    }
    const stillReserved = seen ? seen.reserved - reserved : 0n;
    this.users.set(userId, { balance: outcome.balance, reserved: stillReserved > 0n ? stillReserved : 0n });
  }

  /** A reserved hold that never produced an outcome (its write failed). */
  release(userId: number, reserved: bigint): void {
    const seen = this.users.get(userId);
    if (seen) seen.reserved = seen.reserved > reserved ? seen.reserved - reserved : 0n;
  }
}
