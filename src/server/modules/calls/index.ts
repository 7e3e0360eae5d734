/** What other modules may use of the call log: the trace a gateway call fills, and its writer. */
export { CallTrace, UPSTREAM_EXCERPT_BYTES } from "./trace";
export { CALL_LOG_WRITER_DEFAULTS, CallLogWriter, type CallLogWriterOptions, type DroppedReason } from "./writer";
export { default as callLogPlugin } from "./plugin";
export { default as callsRoutes } from "./routes";
export { callLogEntry, type CallLogEntry } from "./operator";
export { RETENTION_SWEEP_DEFAULTS, sweepOldCalls } from "./retention";
export { daySums, type DaySums } from "./sums";
