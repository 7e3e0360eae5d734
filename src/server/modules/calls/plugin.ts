import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { CALL_LOG_WRITER_DEFAULTS, CallLogWriter } from "./writer";
import { RETENTION_SWEEP_DEFAULTS, sweepOldCalls } from "./retention";

declare module "fastify" {
  interface FastifyInstance {
    /** Where the gateway queues each call's row (src/server/modules/calls). */
    callLog: CallLogWriter;
  }
}

/**
 * The app's one call log writer, whose queue is written before the app closes, and the sweep that
 * deletes rows older than CALL_LOG_RETENTION_DAYS.
 */
export default fp(
  async function callLogPlugin(app: FastifyInstance) {
    const writer = new CallLogWriter(app.db, {
      ...CALL_LOG_WRITER_DEFAULTS,
      onDropped: (reason, rows) => app.metrics.callLogRowsDropped(reason, rows),
      onWriteFailed: (error, rows) => app.log.error({ err: error, rows }, "could not write rows of the call log; they are dropped"),
    });
    app.decorate("callLog", writer);
    app.addHook("onClose", async () => writer.drain());
    const { retentionDays, sweepIntervalMs } = app.config.calls;
    app.every("call-log-retention", sweepIntervalMs, () => sweepOldCalls(app.db, app.clock.now(), { retentionDays, ...RETENTION_SWEEP_DEFAULTS }));
  },
  { name: "call-log", dependencies: ["db", "metrics", "scheduler"] },
);
