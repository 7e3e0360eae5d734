import type { FastifyBaseLogger, FastifyServerOptions } from "fastify";
import type { Bindings, ChildLoggerOptions, LevelWithSilent } from "pino";
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

const LOGGING_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace"] as const;
type LoggingLevel = (typeof LOGGING_LEVELS)[number];

/**
 * A request's logger, made into pino's child (with the request id) only when a line is logged at a
 * level it keeps: most requests log nothing, and a child per request was a measurable share of the
 * cheapest request's CPU (issue 44). Fastify's `childLoggerFactory` (app.ts).
 */
class RequestLogger implements FastifyBaseLogger {
  declare fatal: FastifyBaseLogger["fatal"];
  declare error: FastifyBaseLogger["error"];
  declare warn: FastifyBaseLogger["warn"];
  declare info: FastifyBaseLogger["info"];
  declare debug: FastifyBaseLogger["debug"];
  declare trace: FastifyBaseLogger["trace"];
  private made: FastifyBaseLogger | null = null;

  constructor(
    private readonly parent: FastifyBaseLogger & { levels: { values: Record<string, number> } },
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get real(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  get level(): LevelWithSilent {
    return (this.made?.level ?? this.options.level ?? this.parent.level) as LevelWithSilent;
  }

  set level(level: LevelWithSilent) {
    this.real.level = level;
  }

  /** Whether a line at `level` would be written, without making the child. */
  keeps(level: LoggingLevel): boolean {
    const values = this.parent.levels.values;
    return this.level !== "silent" && values[level]! >= values[this.level]!;
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.real.child(bindings, options);
  }
}
for (const level of LOGGING_LEVELS) {
  RequestLogger.prototype[level] = function (this: RequestLogger, ...args: Parameters<FastifyBaseLogger[LoggingLevel]>) {
    if (this.keeps(level)) (this as unknown as { real: FastifyBaseLogger }).real[level](...args);
  } as FastifyBaseLogger[LoggingLevel];
}

export function requestLogger(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new RequestLogger(parent as ConstructorParameters<typeof RequestLogger>[0], bindings, options);
}
