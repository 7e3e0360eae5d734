import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config";

describe("loadConfig", () => {
  it("starts on embedded defaults", () => {
    const config = loadConfig({ SESSION_SECRET: "x".repeat(32) });
    expect(config.port).toBe(3000);
    expect(config.host).toBe("127.0.0.1");
    expect(config.databaseUrl).toBeUndefined();
    expect(config.dataDir).toMatch(/\/data$/);
    expect(config.siteName).toBe("Tollgate");
    expect(config.publicUrl).toBe("http://localhost:3000");
  });

  it("reads every documented variable", () => {
    const config = loadConfig({
      PORT: "8080",
      HOST: "0.0.0.0",
      DATA_DIR: "/var/lib/tollgate",
      DATABASE_URL: "postgres://u@db:5432/tollgate",
      PUBLIC_URL: "https://api.example.com/",
      COOKIE_DOMAIN: ".example.com",
      SITE_NAME: "Acme APIs",
      SESSION_SECRET: "s".repeat(40),
    });
    expect(config).toMatchObject({
      port: 8080,
      host: "0.0.0.0",
      dataDir: "/var/lib/tollgate",
      databaseUrl: "postgres://u@db:5432/tollgate",
      publicUrl: "https://api.example.com",
      cookieDomain: ".example.com",
      siteName: "Acme APIs",
    });
  });

  it("fails fast naming every bad variable", () => {
    let caught: unknown;
    try {
      loadConfig({ PORT: "eighty", DATABASE_URL: "mysql://x", PUBLIC_URL: "not a url", SESSION_SECRET: "x".repeat(32) });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const message = (caught as Error).message;
    expect(message).toContain("PORT");
    expect(message).toContain("DATABASE_URL: must be a postgres:// or postgresql:// URL");
    expect(message).toContain("PUBLIC_URL");
  });

  it("requires a session secret in production", () => {
    expect(() => loadConfig({ NODE_ENV: "production" })).toThrow(/SESSION_SECRET: required in production/);
  });

  it("reads the process, metrics and request-body settings, with safe defaults", () => {
    const defaults = loadConfig({ SESSION_SECRET: "s".repeat(40) });
    expect(defaults).toMatchObject({ webConcurrency: 1, shutdownTimeoutMs: 30_000, metricsToken: undefined, requestTimeoutMs: 30_000, bodyMemoryBytes: 256 * 1024 * 1024 });
    const set = loadConfig({
      SESSION_SECRET: "s".repeat(40),
      DATABASE_URL: "postgres://u@db:5432/tollgate",
      WEB_CONCURRENCY: "4",
      SHUTDOWN_TIMEOUT_SECONDS: "45",
      METRICS_TOKEN: "m".repeat(20),
      REQUEST_TIMEOUT_SECONDS: "10",
      BODY_MEMORY_MB: "64",
    });
    expect(set).toMatchObject({ webConcurrency: 4, shutdownTimeoutMs: 45_000, metricsToken: "m".repeat(20), requestTimeoutMs: 10_000, bodyMemoryBytes: 64 * 1024 * 1024 });
    expect(() => loadConfig({ METRICS_TOKEN: "short" })).toThrow(/METRICS_TOKEN: must be at least 16 characters/);
    expect(() => loadConfig({ WEB_CONCURRENCY: "0" })).toThrow(/WEB_CONCURRENCY/);
  });

  it("refuses several processes on the embedded database", () => {
    expect(() => loadConfig({ WEB_CONCURRENCY: "2" })).toThrow(/WEB_CONCURRENCY: more than one process needs a PostgreSQL server/);
  });

  it("says what a variable must be in words, not in zod's terms", () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (error) {
        return (error as ConfigError).problems;
      }
      return [];
    };
    expect(problems({ WEB_CONCURRENCY: "0" })).toEqual(["WEB_CONCURRENCY: must be at least 1"]);
    expect(problems({ PORT: "70000" })).toEqual(["PORT: must be at most 65535"]);
    expect(problems({ PORT: "abc" })).toEqual(["PORT: must be a number"]);
    expect(problems({ CALL_LOG_RETENTION_DAYS: "1.5" })).toEqual(["CALL_LOG_RETENTION_DAYS: must be a whole number"]);
    expect(problems({ TRUST_PROXY: "yes" })).toEqual(['TRUST_PROXY: must be one of 0, 1, true, false, "" (empty)']);
    expect(problems({ SMS_PROVIDER: "sms" })).toEqual(["SMS_PROVIDER: must be one of console, aliyun, tencent"]);
  });

  it("rejects a short session secret", () => {
    expect(() => loadConfig({ SESSION_SECRET: "short" })).toThrow(/SESSION_SECRET: must be at least 32 characters/);
  });
});
