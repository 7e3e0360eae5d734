import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { users } from "../../db/schema/index";
import { recordAuthEvent, type RequestOrigin } from "./audit";
import { revokeAllSessions, revokeSession, type SessionIdentity } from "./sessions";

async function phoneOf(db: Db, userId: number): Promise<string | undefined> {
  const [user] = await db.select({ phone: users.phone }).from(users).where(eq(users.id, userId));
  return user?.phone;
}

/** POST /auth/logout: ends the caller's session. */
export async function logout(db: Db, input: { session: SessionIdentity; origin: RequestOrigin; now: Date }): Promise<void> {
  const { origin, now } = input;
  const { sessionId, userId } = input.session;
  await revokeSession(db, sessionId, now);
  await recordAuthEvent(db, origin, { type: "logout", at: now, userId, phone: await phoneOf(db, userId) });
}

/** POST /auth/logout-all: ends every live session of the caller's user, this one included. */
export async function logoutEverywhere(db: Db, input: { userId: number; origin: RequestOrigin; now: Date }): Promise<void> {
  const { userId, origin, now } = input;
  const ended = await revokeAllSessions(db, userId, now);
  await recordAuthEvent(db, origin, { type: "logout_all", at: now, userId, phone: await phoneOf(db, userId), reason: `${ended} sessions` });
}
