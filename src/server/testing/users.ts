import { randomInt } from "node:crypto";
import { parseMoney } from "#shared/money";
import type { Clock } from "../clock";
import type { Database } from "../db/client";
import { users } from "../db/schema/index";
import { randomToken } from "../lib/crypto";
import { createSession } from "../modules/auth/sessions";
import { credit } from "../modules/ledger/ledger";

export interface TestUser {
  userId: number;
  phone: string;
  referralCode: string;
  token: string;
  /** `{ authorization: "Bearer <token>" }`, ready for `app.inject`. */
  headers: { authorization: string };
}

export function randomPhone(): string {
  return `139${String(randomInt(0, 100_000_000)).padStart(8, "0")}`;
}

/**
 * A user with a live session, created straight in the database. A starting balance is
 * credited through the ledger (an operator adjustment), so the ledger still verifies.
 */
export async function createUserWithSession(
  t: { database: Database; clock: Clock },
  options: { phone?: string; balance?: string; referredBy?: number } = {},
): Promise<TestUser> {
  const db = t.database.db;
  const now = t.clock.now();
  const [user] = await db
    .insert(users)
    .values({ phone: options.phone ?? randomPhone(), referralCode: randomToken(6), referredBy: options.referredBy, createdAt: now })
    .returning();
  if (!user) throw new Error("could not create the test user");
  if (options.balance && parseMoney(options.balance) > 0n) {
    await credit(db, {
      userId: user.id,
      amount: parseMoney(options.balance),
      kind: "adjustment",
      method: "operator",
      reference: "test setup",
      idempotencyKey: "test-setup-balance",
      at: now,
    });
  }
  const { token } = await createSession(db, { userId: user.id, now });
  return { userId: user.id, phone: user.phone, referralCode: user.referralCode, token, headers: { authorization: `Bearer ${token}` } };
}
