import { randomUUID } from "node:crypto";
import { formatMoney } from "#shared/money";
import { maskPhone } from "#shared/user";
import { operatorAmount, requiredReason, storedText } from "../../lib/cli/args";
import { userNamed } from "../../lib/cli/user-argument";
import { counted } from "../../lib/cli/counted";
import { UsageError, type CliCommand } from "../../lib/cli/command";
import { credit, debit } from "./ledger";
import { verifyLedger, type LedgerProblem } from "./verify";

function describeProblem(p: LedgerProblem): string {
  switch (p.type) {
    case "balance_mismatch":
      return `user ${p.userId}: balance ${formatMoney(p.balance)} but its entries sum to ${formatMoney(p.ledgerSum)}`;
    case "broken_chain":
      return `user ${p.userId}: entry ${p.entryId} has balance_after ${formatMoney(p.balanceAfter)}, expected ${formatMoney(p.expected)}`;
    case "unknown_user":
      return `user ${p.userId} does not exist, but ${counted(p.entries, "ledger entry", "ledger entries")} name${p.entries === 1 ? "s" : ""} it`;
    case "lot_mismatch":
      return `user ${p.userId}: lot ${p.lotId} has ${p.used} units used but its moves sum to ${p.moved}`;
    case "prepaid_mismatch":
      return `user ${p.userId}: call ${p.requestId} records ${p.prepaidUnits} prepaid units but its lots gave ${p.drawn}`;
    case "foreign_draw":
      return `user ${p.userId}: call ${p.requestId} drew units from lot ${p.lotId}, which is not a lot of this user and tool, or is a free quota of another period`;
  }
}

/** `admin credit` and `admin debit`: an operator adjustment of one user's balance, with a reason the user sees. */
function adjustmentCommand(direction: "credit" | "debit"): CliCommand {
  const credits = direction === "credit";
  return {
    name: direction,
    summary: credits
      ? "credit a user's balance (an operator adjustment in the ledger)"
      : "take money off a user's balance (an operator adjustment in the ledger); refused if the balance is lower",
    usage: `${direction} <phone|user-id> <amount> --reason "…" [--idempotency-key <key>]${credits ? " [--force]" : ""}`,
    examples: credits
      ? ['credit 13800138000 50 --reason "refund for ticket 881" --idempotency-key ticket-881']
      : ['debit 42 9.90 --reason "correction of ticket 881" --idempotency-key ticket-881-fix'],
    options: credits ? { reason: true, "idempotency-key": true, force: false } : { reason: true, "idempotency-key": true },
    async run(ctx, { positionals, options }) {
      const [who, amountText, ...extra] = positionals;
      if (!who || !amountText || extra.length > 0) throw new UsageError("give one user (phone or id) and one amount");
      const amount = operatorAmount(amountText, { most: "one credit may add" }, credits ? ctx.config.money.operatorCreditMaxMicros : null, options.force === true);
      const reason = requiredReason(options.reason, "it is what the user sees as the reference");
      const idempotencyKey = options["idempotency-key"];
      if (idempotencyKey !== undefined && (typeof idempotencyKey !== "string" || !idempotencyKey.trim() || idempotencyKey.length > 200)) {
        throw new UsageError("--idempotency-key: 1 to 200 characters, the same each time the same adjustment is meant (say, a ticket number)");
      }
      if (idempotencyKey !== undefined) storedText(idempotencyKey, "idempotency-key");
      const user = await userNamed(ctx, [who]);
      if (!user) return 1;
      const move = {
        userId: user.id,
        amount,
        kind: "adjustment" as const,
        method: "operator",
        reference: reason,
        // A repeated --idempotency-key (say, a ticket number) moves money once however often the command is run.
        idempotencyKey: `operator:${typeof idempotencyKey === "string" ? idempotencyKey : randomUUID()}`,
        at: ctx.clock.now(),
      };
      const posted = credits ? await credit(ctx.db, move) : await debit(ctx.db, move);
      if (!posted.ok) {
        ctx.err(`user ${user.id}'s balance is ${formatMoney(posted.balance)}, less than ${formatMoney(move.amount)}: nothing was taken`);
        return 1;
      }
      const meant = credits ? move.amount : -move.amount;
      if (posted.replayed && (posted.amount !== meant || posted.reference !== reason)) {
        const earlier = posted.amount > 0n ? `a credit of ${formatMoney(posted.amount)}` : `a debit of ${formatMoney(-posted.amount)}`;
        ctx.err(
          `--idempotency-key "${idempotencyKey}" was used for ${earlier} to user ${user.id} with --reason "${posted.reference}" (entry ${posted.entryId}): nothing changed; a different adjustment needs a key of its own`,
        );
        return 1;
      }
      const done = credits ? `credited ${formatMoney(posted.amount)} to` : `took ${formatMoney(-posted.amount)} from`;
      ctx.out(
        posted.replayed
          ? `already ${credits ? "credited" : "debited"} with this --idempotency-key (entry ${posted.entryId}, ${formatMoney(posted.amount)}): nothing changed; balance after that entry ${formatMoney(posted.balance)}`
          : `${done} user ${user.id} (${maskPhone(user.phone)}); balance now ${formatMoney(posted.balance)} (entry ${posted.entryId})`,
      );
      return 0;
    },
  };
}

export const creditCommand = adjustmentCommand("credit");
export const debitCommand = adjustmentCommand("debit");

export const ledgerVerifyCommand: CliCommand = {
  name: "ledger verify",
  summary: "check every balance against its ledger entries; non-zero exit on any difference",
  usage: "ledger verify",
  examples: ["ledger verify"],
  async run(ctx) {
    const report = await verifyLedger(ctx.db);
    if (report.problems.length === 0) {
      ctx.out(`ledger ok: ${counted(report.users, "user")}, ${counted(report.entries, "entry", "entries")}, every balance equals the sum of its entries`);
      return 0;
    }
    for (const p of report.problems) {
      ctx.err(describeProblem(p));
    }
    ctx.err(`ledger NOT consistent: ${counted(report.problems.length, "problem")} listed (at most 100 of each kind)`);
    return 1;
  },
};
