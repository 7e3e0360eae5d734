import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";

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
  PUBLIC_URL: z.url({ message: "must be an absolute URL such as http://localhost:3000" }).optional(),
  COOKIE_DOMAIN: z
    .string()
    .regex(/^\.?[a-z0-9-]+(\.[a-z0-9-]+)+$/i, "must be a domain such as .example.com")
    .optional()
    .or(z.literal("").transform(() => undefined)),
  SITE_NAME: z.string().min(1).max(64).default("Tollgate"),
  SESSION_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  TRUST_PROXY: boolFromEnv,
  WEB_ROOT: z.string().default("./build/client"),
  BUILD_POLL_SECONDS: z.coerce.number().int().min(5).max(86400).default(60),
});

export type Env = z.input<typeof envSchema>;

export interface AppConfig {
  env: "development" | "production" | "test";
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  publicUrl: string;
  cookieDomain: string | undefined;
  siteName: string;
  /** Key for HMACs of codes and for sealing stored responses; outside production a generated one is kept in DATA_DIR. */
  sessionSecret: string;
  logLevel: string;
  trustProxy: boolean;
  webRoot: string;
  buildPollSeconds: number;
}

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
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
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    dataDir,
    databaseUrl: e.DATABASE_URL,
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ""),
    cookieDomain: e.COOKIE_DOMAIN,
    siteName: e.SITE_NAME,
    sessionSecret: e.SESSION_SECRET ?? localSecret(dataDir),
    logLevel: e.LOG_LEVEL,
    trustProxy: e.TRUST_PROXY,
    webRoot: path.resolve(e.WEB_ROOT),
    buildPollSeconds: e.BUILD_POLL_SECONDS,
  };
}

/** On embedded defaults the secret lives beside the data, so codes and stored responses survive a restart. */
function localSecret(dataDir: string): string {
  const file = path.join(dataDir, ".session-secret");
  try {
    return fs.readFileSync(file, "utf8").trim();
  } catch {
    fs.mkdirSync(dataDir, { recursive: true });
    const secret = randomBytes(32).toString("hex");
    fs.writeFileSync(file, secret, { mode: 0o600, flag: "wx" });
    return secret;
  }
}
