import type { FastifyInstance } from "fastify";
import { refundAbandonedCalls } from "../ledger/index";

/**
 * Calls charged by a process that stopped before they ended get their money back once they are
 * older than GATEWAY_ABANDONED_AFTER_SECONDS, which must outlast every tool's total timeout.
 */
export function refundAbandonedCallsPeriodically(app: FastifyInstance): void {
  const abandonedAfterMs = app.config.gatewayAbandonedAfterMs;
  const slowest = [...app.catalog.values()].reduce((most, tool) => Math.max(most, tool.handler.type === "http" ? tool.handler.totalTimeoutMs : 0), 0);
  if (slowest >= abandonedAfterMs) {
    throw new Error(`GATEWAY_ABANDONED_AFTER_SECONDS must exceed the longest tool's total timeout (${slowest} ms): a call still running would be refunded`);
  }
  app.every("refund abandoned calls", Math.min(60_000, abandonedAfterMs), async () => {
    const now = app.clock.now();
    const refunded = await refundAbandonedCalls(app.db, { olderThan: new Date(now.getTime() - abandonedAfterMs), now });
    if (refunded.calls === 0) return;
    app.log.warn({ refunded: refunded.calls }, "refunded calls abandoned by a stopped server");
    app.metrics.count("refunds", { reason: "abandoned" }, refunded.calls);
    app.metrics.count("refundMicros", { reason: "abandoned" }, refunded.micros);
  });
}
