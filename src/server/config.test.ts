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

  it("rejects a short session secret", () => {
    expect(() => loadConfig({ SESSION_SECRET: "short" })).toThrow(/SESSION_SECRET: must be at least 32 characters/);
  });
});
