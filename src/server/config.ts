import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { moneyConfigFrom, moneyEnv, type MoneyConfig } from "./money-config";
import { authConfigFrom, authEnv, type AuthConfig } from "./auth-config";
import { alertsConfigFrom, alertsEnv, type AlertsConfig } from "./alerts-config";
import { SITE_IDENTITY_DEFAULTS } from "#shared/site-identity";

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
  SITE_NAME: z.string().min(1).max(64).default("Tollgate"),
  COMPANY_NAME: z.string().max(120).optional(),
  CONTACT_EMAIL: z.email({ message: "must be an email address such as legal@example.com" }).default(SITE_IDENTITY_DEFAULTS.contactEmail),
  LEGAL_EFFECTIVE_DATE: z.iso.date({ message: "must be a date such as 2026-01-31" }).default(SITE_IDENTITY_DEFAULTS.legalEffectiveDate),
  SESSION_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  TRUST_PROXY: boolFromEnv,
  WEB_ROOT: z.string().default("./build/client"),
  BUILD_POLL_SECONDS: z.coerce.number().int().min(5).max(86400).default(60),
  ...moneyEnv,
  ...authEnv,
  ...alertsEnv,
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
  REQUEST_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  BODY_MEMORY_MB: z.coerce.number().int().min(1).max(65536).default(256),
  GATEWAY_ABANDONED_AFTER_SECONDS: z.coerce.number().int().min(5).max(86400).default(600),
});

export type Env = z.input<typeof envSchema>;

export interface AppConfig {
  env: "development" | "production" | "test";
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /** Shared rate limits (lib/rate-limiter.ts); unset keeps them in each process's memory. */
  redisUrl: string | undefined;
  /** Prepended to every Redis key, so several sites (or test runs) can share one Redis. */
  redisKeyPrefix: string;
  publicUrl: string;
  cookieDomain: string | undefined;
  siteName: string;
  /** The operator named by the legal pages (COMPANY_NAME, default the site name), their contact and effective date. */
  companyName: string;
  contactEmail: string;
  legalEffectiveDate: string;
  /** Key for HMACs of codes and for sealing stored responses; outside production a generated one is kept in DATA_DIR. */
  sessionSecret: string;
  logLevel: string;
  trustProxy: boolean;
  webRoot: string;
  buildPollSeconds: number;
  /** Top-ups, referral bonus and payment providers (src/server/money-config.ts). */
  money: MoneyConfig;
  /** Phone login: limits, SMS and captcha providers (src/server/auth-config.ts). */
  auth: AuthConfig;
  /** The operator's tool catalog (JSON), validated at start-up. */
  toolsCatalog: string;
  /** Serves POST /v1/echo with no key and no charge: the benchmark's baseline. Off by default. */
  unmeteredEcho: boolean;
  apiKeysMaxPerUser: number;
  /** Worker processes sharing the port (node:cluster); more than 1 only on PostgreSQL. */
  webConcurrency: number;
  /** How long SIGTERM waits for requests in flight and charge batches before the process exits anyway. */
  shutdownTimeoutMs: number;
  /** Bearer token for GET /metrics; unset: no /metrics route. */
  metricsToken: string | undefined;
  /** The most a request (headers and body) may take to arrive; then 408 and the connection closes. */
  requestTimeoutMs: number;
  /** The most memory request bodies still arriving may hold together; over it new bodies get 503. */
  bodyMemoryBytes: number;
  /**
   * A gateway call unfinished after this long was lost with its process: if charged it is
   * refunded, and its Idempotency-Key may run again. Must exceed every tool's timeout.
   */
  gatewayAbandonedAfterMs: number;
  /** Low-balance alerts: SMS cap, job interval, webhook limits (src/server/alerts-config.ts). */
  alerts: AlertsConfig;
}

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

export function loadConfig(env: Record<string, string | undefined> = process.env): AppConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`));
  }
  const e = parsed.data;
  if (e.NODE_ENV === "production" && !e.SESSION_SECRET) {
    throw new ConfigError(["SESSION_SECRET: required in production (at least 32 characters)"]);
  }
  const dataDir = path.resolve(e.DATA_DIR);
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, "");
  const money = moneyConfigFrom(e, publicUrl);
  if (money.problems.length > 0) throw new ConfigError(money.problems);
  if (e.WEB_CONCURRENCY > 1 && !e.DATABASE_URL) {
    throw new ConfigError([
      "WEB_CONCURRENCY: more than one process needs a PostgreSQL server (DATABASE_URL); the embedded PGlite database belongs to one process",
    ]);
  }
  const auth = authConfigFrom(e);
  if (auth.problems.length > 0) throw new ConfigError(auth.problems);
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    dataDir,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ""),
    cookieDomain: e.COOKIE_DOMAIN,
    siteName: e.SITE_NAME,
    companyName: e.COMPANY_NAME || e.SITE_NAME,
    contactEmail: e.CONTACT_EMAIL,
    legalEffectiveDate: e.LEGAL_EFFECTIVE_DATE,
    sessionSecret: e.SESSION_SECRET ?? localSecret(dataDir),
    logLevel: e.LOG_LEVEL,
    trustProxy: e.TRUST_PROXY,
    webRoot: path.resolve(e.WEB_ROOT),
    buildPollSeconds: e.BUILD_POLL_SECONDS,
    money: money.config,
    auth: auth.config,
    toolsCatalog: path.resolve(e.TOOLS_CATALOG),
    unmeteredEcho: e.UNMETERED_ECHO,
    apiKeysMaxPerUser: e.API_KEYS_MAX_PER_USER,
    webConcurrency: e.WEB_CONCURRENCY,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_SECONDS * 1000,
    metricsToken: e.METRICS_TOKEN,
    requestTimeoutMs: e.REQUEST_TIMEOUT_SECONDS * 1000,
    bodyMemoryBytes: e.BODY_MEMORY_MB * 1024 * 1024,
    gatewayAbandonedAfterMs: e.GATEWAY_ABANDONED_AFTER_SECONDS * 1000,
    alerts: alertsConfigFrom(e),
  };
}

/** On embedded defaults the secret lives beside the data, so codes and stored responses survive a restart. */
function localSecret(dataDir: string): string {
  const file = path.join(dataDir, ".session-secret");
  try {
    return fs.readFileSync(file, "utf8").trim();
  } catch {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const secret = randomBytes(32).toString("hex");
    fs.writeFileSync(file, secret, { mode: 0o600, flag: "wx" });
    return secret;
  }
}
