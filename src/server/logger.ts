import type { FastifyServerOptions } from "fastify";
import pretty from "pino-pretty";
import { beijingDateTime } from "#shared/beijing-time";
import type { AppConfig } from "./config";
import { serializeError } from "./log-errors";

/** Paths whose values are secrets or personal data: they never reach a log line. */
export const REDACTED_PATHS = [
  "req.headers.authorization",
  "req.headers.cookie",
  "req.headers[\"idempotency-key\"]",
  "res.headers[\"set-cookie\"]",
  "*.code",
  "*.token",
  "*.csrf_token",
  "*.telephone",
  "*.phone",
  "*.apiKey",
];

/**
 * A log a person reads on a terminal: one line a record, the level in words, Beijing time (as every
 * time a person reads, decision 047), the other fields indented below. `destination`: a file
 * descriptor or a stream (tests), standard output by default.
 */
export function prettyLog(destination: number | NodeJS.WritableStream = 1): NodeJS.WritableStream {
  return pretty({
    destination,
    colorize: typeof destination === "number" && process.stdout.isTTY === true,
    ignore: "pid,hostname",
    // With translateTime off the prettifier is given pino's epoch milliseconds.
    translateTime: false,
    customPrettifiers: { time: (time) => (Number.isFinite(Number(time)) ? `[${beijingDateTime(new Date(Number(time)))}]` : String(time)) },
    sync: true,
  });
}

/**
 * Pino's options: JSON lines (for log collectors) unless standard output is a terminal, where the
 * log is pretty (`prettyLog`); `stream`, where a caller wants the lines (tests), takes them as JSON.
 */
export function loggerOptions(config: AppConfig, stream?: NodeJS.WritableStream, terminal = process.stdout.isTTY === true): FastifyServerOptions["logger"] {
  const destination = stream ?? (terminal ? prettyLog() : undefined);
  return {
    level: config.logLevel,
    redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
    ...(destination ? { stream: destination } : {}),
    serializers: {
      err: serializeError,
      req: (req: { method: string; url: string; ip?: string }) => ({ method: req.method, url: req.url.split("?")[0], ip: req.ip }),
    },
  };
}
