import { LRUCache } from "lru-cache";
import type { ChargeOutcome } from "./metering";

/** Calls of one user a process may have started upstream while their holds commit, at once. */
export const EARLY_STARTS_IN_FLIGHT_PER_USER = 8;
/**
 * Upstream calls started early whose holds were then refused (served to nobody, paid by nobody):
 * once a user has caused this many in a process, that process never starts their calls early again.
 */
export const REFUSED_EARLY_STARTS_PER_USER = 8;
/**
 * The most upstream calls one user can make a process start that nobody pays for, over the
 * process's whole life: one fewer than the refusals that stop early starts, plus the calls that
 * may be in flight when the last of those is refused.
 */
export const UNPAID_UPSTREAM_CALLS_PER_USER_AND_PROCESS = REFUSED_EARLY_STARTS_PER_USER - 1 + EARLY_STARTS_IN_FLIGHT_PER_USER;

/**
 * Each user's balance as this process last saw it (from its own charges' outcomes), less the
 * holds of upstream calls it started before those holds committed. An upstream call may start
 * while its hold commits only when that balance covers the hold, fewer than
 * `EARLY_STARTS_IN_FLIGHT_PER_USER` of the user's calls are already waiting so, and the user has
 * not had `REFUSED_EARLY_STARTS_PER_USER` early calls refused (decision 038); the hold itself,
 * committed in the database, still decides. Any refused hold forgets the balance seen, so the
 * user's next calls wait for their holds until a charge shows it again.
 */
export class SeenBalances {
  private readonly balances = new LRUCache<number, bigint>({ max: 10_000 });
  /** Holds reserved and not yet committed or refused, by user: an entry only while some are. */
  private readonly reserved = new Map<number, { amount: bigint; calls: number }>();
  /** Early starts refused, by user. Large enough that evicting a user means funding 100,000 others. */
  private readonly refusedEarly = new LRUCache<number, number>({ max: 100_000 });

  /** Reserves `amount` against the balance seen for a call about to start early; false when it may not. */
  reserve(userId: number, amount: bigint): boolean {
    const balance = this.balances.get(userId);
    const reserved = this.reserved.get(userId) ?? { amount: 0n, calls: 0 };
    if (balance === undefined || balance - reserved.amount < amount) return false;
    if (reserved.calls >= EARLY_STARTS_IN_FLIGHT_PER_USER) return false;
    if ((this.refusedEarly.get(userId) ?? 0) >= REFUSED_EARLY_STARTS_PER_USER) return false;
    this.reserved.set(userId, { amount: reserved.amount + amount, calls: reserved.calls + 1 });
    return true;
  }

  /** A charge's outcome, and whether `reserve` set `amount` aside for it (the call started early). */
  record(userId: number, startedEarly: boolean, amount: bigint, outcome: ChargeOutcome): void {
    if (startedEarly) this.release(userId, amount);
    if (outcome.ok) {
      this.balances.set(userId, outcome.balance);
      return;
    }
    this.balances.delete(userId);
    if (startedEarly) this.refusedEarly.set(userId, (this.refusedEarly.get(userId) ?? 0) + 1);
  }

  /** Gives back what `reserve` set aside for a call that started early and whose hold will not be recorded (its write failed). */
  release(userId: number, amount: bigint): void {
    const reserved = this.reserved.get(userId);
    if (!reserved) return;
    if (reserved.calls > 1) this.reserved.set(userId, { amount: reserved.amount - amount, calls: reserved.calls - 1 });
    else this.reserved.delete(userId);
  }
}
