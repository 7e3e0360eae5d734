import { LRUCache } from "lru-cache";
import type { ChargeOutcome } from "../ledger/index";

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

interface Pending {
  amount: bigint;
  calls: number;
  early: number;
}

/** A user's balance as of the newest charge this process has seen committed. */
interface Seen {
  /** Undefined once a refusal made it unknown. */
  balance: bigint | undefined;
  /** The usage row of that charge: usage ids of one user rise in commit order (taken under the user's row lock). */
  usageId: number;
}

/**
 * Each user's balance as this process last saw it, from its own charges' outcomes, less every
 * charge it has sent and not yet heard back from. An upstream call may start while its hold
 * commits only when that covers the hold, fewer than `EARLY_STARTS_IN_FLIGHT_PER_USER` of the
 * user's calls are already waiting so, and the user has not had `REFUSED_EARLY_STARTS_PER_USER`
 * early calls refused (decision 038); the hold itself, committed in the database, still decides.
 *
 * Outcomes may come back out of commit order (batches flush concurrently), so an outcome older
 * than the one recorded is ignored: then within one process, with no spend limit, a call started
 * early is never refused; only another process's spending or a credit it has not seen changes the
 * balance behind its back. Any refused hold forgets the balance seen, so the user's next calls
 * wait for their holds until a charge shows it again.
 */
export class SeenBalances {
  private readonly seen = new LRUCache<number, Seen>({ max: 10_000 });
  /** Charges sent and not yet answered, by user: their sum, how many, how many started early. An entry only while some are. */
  private readonly pending = new Map<number, Pending>();
  /** Early starts refused, by user. Large enough that evicting a user means funding 100,000 others. */
  private readonly refusedEarly = new LRUCache<number, number>({ max: 100_000 });

  /**
   * Counts a charge of `amount` about to be sent; with `mayStartEarly`, says whether its call may
   * start upstream before the charge commits. Every `send` is followed by one `answered`.
   */
  send(userId: number, amount: bigint, mayStartEarly: boolean): boolean {
    const pending = this.pending.get(userId) ?? { amount: 0n, calls: 0, early: 0 };
    const early = mayStartEarly && this.coversEarly(userId, amount, pending);
    this.pending.set(userId, { amount: pending.amount + amount, calls: pending.calls + 1, early: pending.early + (early ? 1 : 0) });
    return early;
  }

  /** A sent charge's outcome, or undefined when its write failed (nothing is learned of the balance). */
  answered(userId: number, amount: bigint, startedEarly: boolean, outcome: ChargeOutcome | undefined): void {
    const pending = this.pending.get(userId);
    if (pending && pending.calls > 1) {
      this.pending.set(userId, { amount: pending.amount - amount, calls: pending.calls - 1, early: pending.early - (startedEarly ? 1 : 0) });
    } else this.pending.delete(userId);
    if (!outcome) return;
    const seen = this.seen.get(userId);
    if (outcome.ok) {
      if (!seen || outcome.usageId > seen.usageId) this.seen.set(userId, { balance: outcome.balance, usageId: outcome.usageId });
      return;
    }
    if (seen) seen.balance = undefined;
    if (startedEarly) this.refusedEarly.set(userId, (this.refusedEarly.get(userId) ?? 0) + 1);
  }

  private coversEarly(userId: number, amount: bigint, pending: Pending): boolean {
    const balance = this.seen.get(userId)?.balance;
    if (balance === undefined || balance - pending.amount < amount) return false;
    if (pending.early >= EARLY_STARTS_IN_FLIGHT_PER_USER) return false;
    return (this.refusedEarly.get(userId) ?? 0) < REFUSED_EARLY_STARTS_PER_USER;
  }
}
