import type { FastifyServerOptions } from "fastify";
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

export function loggerOptions(config: AppConfig, stream?: NodeJS.WritableStream): FastifyServerOptions["logger"] {
  return {
    level: config.logLevel,
    redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
    ...(stream ? { stream } : {}),
    serializers: {
      err: serializeError,
      req: (req: { method: string; url: string; ip?: string }) => ({ method: req.method, url: req.url.split("?")[0], ip: req.ip }),
    },
  };
}
