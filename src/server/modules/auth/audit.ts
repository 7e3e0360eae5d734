import { maskPhone } from "#shared/user";
import type { Db } from "../../db/client";
import { authEvents } from "../../db/schema/index";

export type AuthEventType =
  | "code_sent"
  | "code_refused"
  | "login_succeeded"
  | "login_failed"
  | "logout"
  | "logout_all";

/** Where a sign-in request came from, as the route read it. */
export interface RequestOrigin {
  ip: string;
  userAgent?: string;
  requestId: string;
}

/** One line of the sign-in audit trail; the phone is stored masked, never in full. */
export async function recordAuthEvent(
  db: Db,
  origin: RequestOrigin,
  event: { type: AuthEventType; at: Date; reason?: string; phone?: string; userId?: number },
): Promise<void> {
  await db.insert(authEvents).values({
    at: event.at,
    type: event.type,
    reason: event.reason,
    phoneMasked: event.phone ? maskPhone(event.phone) : null,
    userId: event.userId,
    ip: origin.ip,
    userAgent: origin.userAgent?.slice(0, 512),
    requestId: origin.requestId,
  });
}
