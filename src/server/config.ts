import path from "node:path";
import { z } from "zod";
import { readOrCreateSecret } from "./lib/local-secret";
import { moneyConfigFrom, moneyEnv } from "./modules/payments/config";
import { authConfigFrom, authEnv } from "./modules/auth/config";
import { alertsConfigFrom, alertsEnv } from "./modules/alerts/config";
import { callsConfigFrom, callsEnv } from "./modules/calls/config";
import { SITE_CONFIG_DEFAULTS, SITE_IDENTITY_DEFAULTS, siteIdentityFrom } from "#shared/site-config";

const boolFromEnv = z
  .enum(["true", "false", "1", "0", ""])
  .optional()
  .transform((v) => v === "true" || v === "1");

const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default("127.0.0.1"),
  DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional()
    .or(z.literal("").transform(() => undefined)),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, "must be a redis:// or rediss:// URL")
    .optional()
    .or(z.literal("").transform(() => undefined)),
  REDIS_KEY_PREFIX: z.string().max(64).default("tollgate:"),
  PUBLIC_URL: z.url({ message: "must be an absolute URL such as http://localhost:3000" }).optional(),
  COOKIE_DOMAIN: z
    .string()
    .regex(/^\.?[a-z0-9-]+(\.[a-z0-9-]+)+$/i, "must be a domain such as .example.com")
    .optional()
    .or(z.literal("").transform(() => undefined)),
  SITE_NAME: z.string().min(1).max(64).default(SITE_IDENTITY_DEFAULTS.siteName),
  COMPANY_NAME: z.string().max(120).optional(),
  CONTACT_EMAIL: z.email({ message: "must be an email address such as legal@example.com" }).default(SITE_IDENTITY_DEFAULTS.contactEmail),
  LEGAL_EFFECTIVE_DATE: z.iso.date({ message: "must be a date such as 2026-01-31" }).default(SITE_IDENTITY_DEFAULTS.legalEffectiveDate),
  SESSION_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  TRUST_PROXY: boolFromEnv,
  WEB_ROOT: z.string().default("./build/client"),
  BUILD_POLL_SECONDS: z.coerce.number().int().min(5).max(86400).default(SITE_CONFIG_DEFAULTS.buildPollSeconds),
  ...moneyEnv,
  ...authEnv,
  ...alertsEnv,
  ...callsEnv,
  TOOLS_CATALOG: z.string().min(1).default("./config/tools.json"),
  UNMETERED_ECHO: boolFromEnv,
  API_KEYS_MAX_PER_USER: z.coerce.number().int().min(1).max(10000).default(50),
  WEB_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(1),
  SHUTDOWN_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  METRICS_TOKEN: z
    .string()
    .min(16, "must be at least 16 characters")
    .optional()
    .or(z.literal("").transform(() => undefined)),
  LEDGER_CHECK_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(86400).default(60),
  REQUEST_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  BODY_MEMORY_MB: z.coerce.number().int().min(1).max(65536).default(256),
  GATEWAY_ABANDONED_AFTER_SECONDS: z.coerce.number().int().min(5).max(86400).default(600),
  INSTANCE_LEASE_SECONDS: z.coerce.number().int().min(3).max(600).default(15),
});

export type Env = z.input<typeof envSchema>;

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/** For the entry points: the config, or the problems printed and the process ended (exit 78, EX_CONFIG). */
export function loadConfigOrExit(): AppConfig {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(78);
    }
    throw error;
  }
}

/**
 * The environment, checked and turned into the app's settings in one pass: each domain's variables
 * and their mapping live beside its module (auth, payments, alerts), and AppConfig is what this
 * schema gives, so a setting is written once as a variable and once as a field.
 */
const configSchema = envSchema.transform((e, ctx) => {
  const problem = (message: string) => ctx.addIssue({ code: "custom", message });
  if (e.NODE_ENV === "production" && !e.SESSION_SECRET) problem("SESSION_SECRET: required in production (at least 32 characters)");
  if (e.WEB_CONCURRENCY > 1 && !e.DATABASE_URL) {
    problem("WEB_CONCURRENCY: more than one process needs a PostgreSQL server (DATABASE_URL); the embedded PGlite database belongs to one process");
  }
  const dataDir = path.resolve(e.DATA_DIR);
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, "");
  const { config: money, problems: moneyProblems } = moneyConfigFrom(e, publicUrl);
  const { config: auth, problems: authProblems } = authConfigFrom(e);
  [...moneyProblems, ...authProblems].forEach(problem);
  if (ctx.issues.length > 0) return z.NEVER;
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    dataDir,
    databaseUrl: e.DATABASE_URL,
    /** Shared rate limits (lib/rate-limiter.ts); unset keeps them in each process's memory. */
    redisUrl: e.REDIS_URL,
    /** Prepended to every Redis key, so several sites (or test runs) can share one Redis. */
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    publicUrl,
    cookieDomain: e.COOKIE_DOMAIN,
    /** The site's name, and the operator named by the legal pages (COMPANY_NAME, default the site name), their contact and effective date. */
    ...siteIdentityFrom({ siteName: e.SITE_NAME, companyName: e.COMPANY_NAME, contactEmail: e.CONTACT_EMAIL, legalEffectiveDate: e.LEGAL_EFFECTIVE_DATE }),
    /** Key for HMACs of codes and for sealing stored responses; outside production a generated one is kept in DATA_DIR. */
    sessionSecret: e.SESSION_SECRET ?? localSecret(dataDir),
    logLevel: e.LOG_LEVEL,
    trustProxy: e.TRUST_PROXY,
    webRoot: path.resolve(e.WEB_ROOT),
    buildPollSeconds: e.BUILD_POLL_SECONDS,
    /** Top-ups, referral bonus and payment providers (modules/payments/config.ts). */
    money,
    /** Phone login: limits, SMS and captcha providers (modules/auth/config.ts). */
    auth,
    /** The operator's tool catalog (JSON), validated at start-up. */
    toolsCatalog: path.resolve(e.TOOLS_CATALOG),
    /** Serves POST /v1/echo with no key and no charge: the benchmark's baseline. Off by default. */
    unmeteredEcho: e.UNMETERED_ECHO,
    apiKeysMaxPerUser: e.API_KEYS_MAX_PER_USER,
    /** Worker processes sharing the port (node:cluster); more than 1 only on PostgreSQL. */
    webConcurrency: e.WEB_CONCURRENCY,
    /** How long SIGTERM waits for requests in flight and charge batches before the process exits anyway. */
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_SECONDS * 1000,
    /** Bearer token for GET /metrics; unset: no /metrics route. */
    metricsToken: e.METRICS_TOKEN,
    /** How often the ledger reconciler checks its next batch of users for the metrics (only with METRICS_TOKEN). */
    ledgerCheckIntervalMs: e.LEDGER_CHECK_INTERVAL_SECONDS * 1000,
    /** The most a request (headers and body) may take to arrive; then 408 and the connection closes. */
    requestTimeoutMs: e.REQUEST_TIMEOUT_SECONDS * 1000,
    /** The most memory request bodies still arriving may hold together; over it new bodies get 503. */
    bodyMemoryBytes: e.BODY_MEMORY_MB * 1024 * 1024,
    /**
     * A gateway call unfinished after this long was lost with its process: if charged it is
     * refunded, and its Idempotency-Key may run again. Must exceed every tool's timeout.
     */
    gatewayAbandonedAfterMs: e.GATEWAY_ABANDONED_AFTER_SECONDS * 1000,
    /**
     * How long a process counts as alive after it last renewed its lease (it renews every third of
     * this): a gateway call's Idempotency-Key claim whose process stopped renewing is resolved at
     * the next retry (lib/instance-lease.ts).
     */
    instanceLeaseMs: e.INSTANCE_LEASE_SECONDS * 1000,
    /** Low-balance alerts: SMS cap, job interval, webhook limits (modules/alerts/config.ts). */
    alerts: alertsConfigFrom(e),
    /** The call log: how long its rows are kept (modules/calls/config.ts). */
    calls: callsConfigFrom(e),
  };
});

export type AppConfig = z.output<typeof configSchema>;

/**
 * A problem with a variable as the operator reads it: zod's own wording for the common shapes
 * ("Too small: expected number to be >=1", `expected one of "0"|"1"`, "expected int, received
 * number") said as a sentence about the value; the schema's own messages stay as written.
 */
function configMessage(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "too_small":
      if (issue.origin === "number") return `must be ${issue.inclusive ? "at least" : "more than"} ${String(issue.minimum)}`;
      break;
    case "too_big":
      if (issue.origin === "number") return `must be ${issue.inclusive ? "at most" : "less than"} ${String(issue.maximum)}`;
      break;
    case "invalid_value":
      return `must be one of ${issue.values.map((v) => (v === "" ? '"" (empty)' : String(v))).join(", ")}`;
    case "invalid_type":
      if (issue.expected === "int") return "must be a whole number";
      if (issue.expected === "number") return "must be a number";
      break;
  }
  return issue.message;
}

export function loadConfig(env: Record<string, string | undefined> = process.env): AppConfig {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => (i.path.length > 0 ? `${i.path.join(".")}: ${configMessage(i)}` : configMessage(i))));
  return parsed.data;
}

/**
 * Where the database is, read from the environment alone: `loadConfig` would make DATA_DIR and
 * write a local secret into it, and the CLI must first know whether a database is there at all.
 * null when the two variables do not parse (`loadConfig` then says why).
 */
export function databaseLocation(env: Record<string, string | undefined> = process.env): { dataDir: string; databaseUrl?: string } | null {
  const parsed = envSchema.pick({ DATA_DIR: true, DATABASE_URL: true }).safeParse(env);
  return parsed.success ? { dataDir: path.resolve(parsed.data.DATA_DIR), databaseUrl: parsed.data.DATABASE_URL } : null;
}

/** On embedded defaults the secret lives beside the data, so codes and stored responses survive a restart. */
const localSecret = (dataDir: string) => readOrCreateSecret(path.join(dataDir, ".session-secret"));
