import { randomBytes } from "node:crypto";
import type { FastifyInstance } from "fastify";
import type { Db } from "../db/client";
import { apiKeys } from "../db/schema/index";
import { createUserWithSession, type TestUser } from "./users";
import type { TestApp } from "./test-app";

export interface TestKey {
  id: number;
  secret: string;
}

/** An API key made as the console makes one (POST /api/v1/console/keys); `body` sets its name, limits, allowlists. */
export async function createApiKey(t: { app: FastifyInstance }, user: TestUser, body: object = {}): Promise<TestKey> {
  const res = await t.app.inject({ method: "POST", url: "/api/v1/console/keys", headers: user.headers, payload: { name: "test", ...body } });
  if (res.statusCode !== 201) throw new Error(`the key was refused: ${res.statusCode} ${res.body}`);
  return { id: res.json().key.id, secret: res.json().secret };
}

/** A user with a live session, a balance (default 1) and an API key made through the console. */
export async function createUserWithKey(t: TestApp, options: { balance?: string; key?: object } = {}): Promise<{ user: TestUser; key: TestKey }> {
  const user = await createUserWithSession(t, { balance: options.balance ?? "1" });
  return { user, key: await createApiKey(t, user, options.key) };
}

/** A key row written straight into the database, for tests of the money wing that run no app: its id (no usable secret). */
export async function insertApiKey(db: Db, userId: number, at: Date): Promise<number> {
  const [key] = await db.insert(apiKeys).values({ userId, name: "k", keyHash: randomBytes(16).toString("hex"), prefix: "tg_", last4: "abcd", createdAt: at }).returning({ id: apiKeys.id });
  return key!.id;
}
