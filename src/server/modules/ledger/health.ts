import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { queryRows, type Db } from "../../db/client";

/** What the metrics show of the money's health, from the last full pass over the users. */
export interface LedgerHealth {
  /** Users whose balance is not the sum of their ledger entries. */
  driftUsers: number;
  /** The sum, over those users, of how far the balance is from the ledger (micro-units, absolute). */
  driftMicros: bigint;
  /** Users with a balance below zero: the money's rules never allow one. */
  negativeBalances: number;
}

/**
 * Checks the balances against their ledgers a bounded batch of users at a time, in user-id order,
 * and reports a pass once it has reached the last user; the next run starts again from the first.
 * Each run's work is at most `batchSize` users and their entries, however large the tables grow,
 * so it can run every minute beside the gateway (issue 41). `admin ledger verify` is the full check.
 */
export class LedgerReconciler {
  private after = 0;
  private pass: LedgerHealth = emptyHealth();

  constructor(
    private readonly db: Db,
    private readonly batchSize = 1000,
  ) {}

  /** Checks the next batch; returns the health of the pass it completed, if it completed one. */
  async step(): Promise<LedgerHealth | undefined> {
    const rows = await queryRows<{ id: string; drift: string; negative: boolean }>(
      this.db,
      sql`select u.id::text as id, u.balance < 0 as negative,
                 (u.balance - coalesce((select sum(e.amount) from ledger_entries e where e.user_id = u.id), 0))::text as drift
          from users u where u.id > ${this.after} order by u.id limit ${this.batchSize}`,
    );
    for (const row of rows) {
      const drift = BigInt(row.drift);
      if (drift !== 0n) {
        this.pass.driftUsers += 1;
        this.pass.driftMicros += drift < 0n ? -drift : drift;
      }
      if (row.negative) this.pass.negativeBalances += 1;
    }
    if (rows.length === this.batchSize) {
      this.after = Number(rows[rows.length - 1]!.id);
      return undefined;
    }
    const done = this.pass;
    this.after = 0;
    this.pass = emptyHealth();
    return done;
  }
}

function emptyHealth(): LedgerHealth {
  return { driftUsers: 0, driftMicros: 0n, negativeBalances: 0 };
}

/** Calls still holding their charge after the abandoned-call sweep should have refunded them: the sweep is not running. */
export async function stuckHolds(db: Db, olderThan: Date): Promise<number> {
  const [row] = await queryRows<{ count: string }>(
    db,
    sql`select count(*)::text as count from usage_records where status = 'pending' and created_at < ${olderThan.toISOString()}::timestamptz`,
  );
  return Number(row?.count ?? 0);
}

/**
 * With metrics kept (METRICS_TOKEN), checks the next batch of users every LEDGER_CHECK_INTERVAL_SECONDS
 * and reports each completed pass, with the stuck holds counted then, to the metrics.
 */
export function reportMoneyHealthPeriodically(app: FastifyInstance): void {
  if (!app.metrics.kept) return;
  const reconciler = new LedgerReconciler(app.db);
  app.every("ledger health", app.config.ledgerCheckIntervalMs, async () => {
    const pass = await reconciler.step();
    if (!pass) return;
    const stuck = await stuckHolds(app.db, new Date(app.clock.now().getTime() - app.config.gatewayAbandonedAfterMs));
    app.metrics.observeMoneyHealth({ ...pass, stuckHolds: stuck });
    if (pass.driftUsers > 0 || pass.negativeBalances > 0) {
      app.log.error({ ...pass, driftMicros: String(pass.driftMicros) }, "the ledger reconciler found balances that do not match their ledgers; run tollgate admin ledger verify");
    }
  });
}
