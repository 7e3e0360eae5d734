import { z } from "zod";

/** Environment variables of the call log; config.ts spreads them into its schema. */
export const callsEnv = {
  CALL_LOG_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
  CALL_LOG_SWEEP_SECONDS: z.coerce.number().int().min(1).max(86_400).default(600),
};

type CallsEnv = z.output<z.ZodObject<typeof callsEnv>>;

export function callsConfigFrom(e: CallsEnv) {
  return {
    /** How many days a call's row is kept; the daily sums are kept for good. */
    retentionDays: e.CALL_LOG_RETENTION_DAYS,
    /** How often the sweep deletes rows past the retention, in bounded batches. */
    sweepIntervalMs: e.CALL_LOG_SWEEP_SECONDS * 1000,
  };
}

export type CallsConfig = ReturnType<typeof callsConfigFrom>;
