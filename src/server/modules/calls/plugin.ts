import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { CALL_LOG_WRITER_DEFAULTS, CallLogWriter } from "./writer";

declare module "fastify" {
  interface FastifyInstance {
    /** Where the gateway queues each call's row (src/server/modules/calls). */
    callLog: CallLogWriter;
  }
}

/** The app's one call log writer; what it has queued is written before the app closes. */
export default fp(
  async function callLogPlugin(app: FastifyInstance) {
    const writer = new CallLogWriter(app.db, {
      ...CALL_LOG_WRITER_DEFAULTS,
      onDropped: (reason, rows) => app.metrics.callLogRowsDropped(reason, rows),
      onWriteFailed: (error, rows) => app.log.error({ err: error, rows }, "could not write rows of the call log; they are dropped"),
    });
    app.decorate("callLog", writer);
    app.addHook("onClose", async () => writer.drain());
  },
  { name: "call-log", dependencies: ["db", "metrics"] },
);
