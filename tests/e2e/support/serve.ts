/**
 * Starts the built app for the browser tests on a fresh database: a new PGlite folder, or a new
 * database on the PostgreSQL server when DATABASE_URL is set.
 */
import fs from "node:fs";
import pg from "pg";
import { buildApp } from "../../../src/server/app";
import { startControlSocket } from "../../../src/server/cli/control-socket";
import { loadConfig } from "../../../src/server/config";
import { E2E_DATA_DIR, E2E_DATABASE_NAME, E2E_PORT, E2E_WEB_ROOT } from "./e2e-env";
import { E2E_SITE_IDENTITY } from "./site-identity";
import { fakeAlipayEnv } from "./fake-alipay";
import { fakeWechatPayEnv } from "./fake-wechatpay";
import { seedRedemptionCodes } from "./seed-codes";

async function freshPostgres(url: string): Promise<string> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`drop database if exists "${E2E_DATABASE_NAME}" with (force)`);
  await admin.query(`create database "${E2E_DATABASE_NAME}"`);
  await admin.end();
  const parsed = new URL(url);
  parsed.pathname = `/${E2E_DATABASE_NAME}`;
  return parsed.toString();
}

fs.rmSync(E2E_DATA_DIR, { recursive: true, force: true });
fs.mkdirSync(E2E_DATA_DIR, { recursive: true });
const databaseUrl = process.env.DATABASE_URL ? await freshPostgres(process.env.DATABASE_URL) : "";

const config = loadConfig({
  ...process.env,
  NODE_ENV: "test",
  PORT: String(E2E_PORT),
  WEB_ROOT: E2E_WEB_ROOT,
  HOST: "127.0.0.1",
  DATA_DIR: E2E_DATA_DIR,
  DATABASE_URL: databaseUrl,
  SESSION_SECRET: "e2e-secret-0123456789abcdef0123456789abcdef",
  LOG_LEVEL: "warn",
  BUILD_POLL_SECONDS: "5",
  ...E2E_SITE_IDENTITY,
  // Every browser test signs in from 127.0.0.1: the login limits must not get in their way.
  AUTH_CODE_RESEND_SECONDS: "0",
  AUTH_CODE_PER_PHONE_HOUR: "1000",
  AUTH_CODE_PER_PHONE_DAY: "1000",
  AUTH_CODE_PER_IP_HOUR: "1000000",
  AUTH_CODE_PHONES_PER_IP_HOUR: "1000000",
  AUTH_SMS_DAILY_BUDGET: "1000000",
  AUTH_LOCKOUT_FAILURES: "1000",
  ALTCHA_MAX_NUMBER: "2000",
  REDEEM_FAILURES_PER_IP_PER_HOUR: "100000",
  // The alerts spec's webhook receiver listens on 127.0.0.1 (README: ALERT_WEBHOOK_ALLOW_LOOPBACK).
  ALERT_WEBHOOK_ALLOW_LOOPBACK: "true",
  ALERT_JOB_SECONDS: "1",
  ...(await fakeAlipayEnv(`http://127.0.0.1:${E2E_PORT}`)),
  ...(await fakeWechatPayEnv(`http://127.0.0.1:${E2E_PORT}`)),
});
const app = await buildApp(config);
await seedRedemptionCodes(app.db);
if (app.database.kind === "pglite") app.addHook("onClose", await startControlSocket(app));
await app.listen({ port: config.port, host: config.host });
// Shown in the test output: the browser tests' server runs on the package's Node 24 (decision 014).
console.error(`e2e server on Node ${process.version}`);
const stop = () => void app.close().then(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
