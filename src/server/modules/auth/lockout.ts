import type { AuthLimits } from "../../auth-config";
import type { Tx } from "../../db/client";
import { DAY_MS, RATE_EVENTS, rateEventTimes, recordRateEvent } from "./rate-limits";

/** Until when the phone is locked after too many failed logins, or null. */
export async function lockedUntil(tx: Tx, target: string, now: Date, limits: AuthLimits): Promise<Date | null> {
  const lockouts = await rateEventTimes(tx, RATE_EVENTS.lockout, target, new Date(now.getTime() - limits.lockoutSeconds * 1000));
  const last = lockouts.at(-1);
  return last ? new Date(last.getTime() + limits.lockoutSeconds * 1000) : null;
}

/**
 * Counts a failed login against the phone. Failures within 24 hours since the last lockout add
 * up; reaching the limit locks the phone. Returns whether this failure locked it.
 */
export async function recordLoginFailure(tx: Tx, target: string, now: Date, limits: AuthLimits): Promise<boolean> {
  await recordRateEvent(tx, { name: RATE_EVENTS.loginFailure, key: target, at: now });
  const dayAgo = new Date(now.getTime() - DAY_MS);
  const lastLockout = (await rateEventTimes(tx, RATE_EVENTS.lockout, target, dayAgo)).at(-1);
  const failures = await rateEventTimes(tx, RATE_EVENTS.loginFailure, target, new Date(Math.max(dayAgo.getTime(), lastLockout?.getTime() ?? 0)));
  if (failures.length < limits.lockoutFailures) return false;
  await recordRateEvent(tx, { name: RATE_EVENTS.lockout, key: target, at: now });
  return true;
}
