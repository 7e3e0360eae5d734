import { and, desc, eq, inArray, isNotNull, sql } from "drizzle-orm";
import type { z } from "zod";
import { ALERT_EVENT_TYPES, ALERT_MESSAGES, type AlertDelivery, type AlertSettings, type alertSettingsBody } from "#shared/alerts";
import { ERROR_CODES } from "#shared/errors";
import { formatMoney, parseMoney } from "#shared/money";
import type { Db } from "../../db/client";
import { alertAttempts, alertDeliveries, alertSettings } from "../../db/schema/index";
import { AppError } from "../../errors";
import { randomToken } from "../../lib/crypto";
import { webhookUrlProblem, type GuardOptions } from "./address-guard";
import { newWebhookSecret } from "./signature";

const RECENT_DELIVERIES = 20;
/** When to try another test event while one is on its way: about one webhook attempt. */
const TEST_EVENT_RETRY_SECONDS = 10;

type SettingsRow = typeof alertSettings.$inferSelect;
type Sealing = { seal(plain: string): string };

async function settingsRow(db: Db, userId: number): Promise<SettingsRow | undefined> {
  const [row] = await db.select().from(alertSettings).where(eq(alertSettings.userId, userId));
  return row;
}

async function recentDeliveries(db: Db, userId: number): Promise<AlertDelivery[]> {
  const rows = await db
    .select()
    .from(alertDeliveries)
    .where(eq(alertDeliveries.userId, userId))
    .orderBy(desc(alertDeliveries.createdAt), desc(alertDeliveries.id))
    .limit(RECENT_DELIVERIES);
  const attempts =
    rows.length === 0
      ? []
      : await db
          .select()
          .from(alertAttempts)
          .where(inArray(alertAttempts.deliveryId, rows.map((r) => r.id)))
          .orderBy(alertAttempts.id);
  return rows.map((r) => ({
    id: r.id,
    eventId: r.eventId,
    eventType: r.eventType,
    channel: r.channel,
    status: r.status,
    createdAt: r.createdAt.toISOString(),
    deliveredAt: r.deliveredAt?.toISOString() ?? null,
    nextAttemptAt: r.status === "pending" ? r.nextAttemptAt.toISOString() : null,
    lastError: r.lastError,
    attempts: attempts
      .filter((a) => a.deliveryId === r.id)
      .map((a) => ({ at: a.attemptedAt.toISOString(), httpStatus: a.httpStatus, error: a.error })),
  }));
}

export async function getAlertSettings(db: Db, userId: number, smsPerDay: number): Promise<AlertSettings> {
  const row = await settingsRow(db, userId);
  return {
    threshold: row?.threshold == null ? null : formatMoney(row.threshold),
    webhookUrl: row?.webhookUrl ?? null,
    hasWebhookSecret: Boolean(row?.webhookSecretSealed),
    smsPerDay,
    deliveries: await recentDeliveries(db, userId),
  };
}

/**
 * Saves the threshold and webhook URL. A changed threshold watches charges from now on only. The
 * first webhook URL gets a signing secret, returned this once; later changes keep it.
 */
export async function saveAlertSettings(
  db: Db,
  input: { userId: number; body: z.output<typeof alertSettingsBody>; now: Date; guard: GuardOptions; sealer: Sealing },
): Promise<{ webhookSecret?: string }> {
  const { userId, body, now } = input;
  if (body.webhookUrl) {
    const problem = webhookUrlProblem(body.webhookUrl, input.guard);
    if (problem) throw AppError.badRequest(`webhookUrl: ${problem}`, ERROR_CODES.validation);
  }
  const before = await settingsRow(db, userId);
  const threshold = body.threshold === null ? null : parseMoney(body.threshold);
  const secret = body.webhookUrl && !before?.webhookSecretSealed ? newWebhookSecret() : undefined;
  const sealed = secret === undefined ? undefined : input.sealer.seal(secret);
  const values = {
    threshold,
    webhookUrl: body.webhookUrl,
    watchedSince: before && before.threshold === threshold ? before.watchedSince : now,
    updatedAt: now,
  };
  // Saves racing to set the first URL (a double click on Save) each read no secret and made one:
  // the upsert keeps the secret stored first, and only the save whose secret that is shows it. Each
  // one shown, with the last one stored, left the user verifying signatures with a secret that never signed.
  const [row] = await db
    .insert(alertSettings)
    .values({ userId, ...values, ...(sealed ? { webhookSecretSealed: sealed } : {}) })
    .onConflictDoUpdate({
      target: alertSettings.userId,
      set: { ...values, ...(sealed ? { webhookSecretSealed: sql`coalesce(alert_settings.webhook_secret_sealed, excluded.webhook_secret_sealed)` } : {}) },
    })
    .returning({ webhookSecretSealed: alertSettings.webhookSecretSealed });
  return secret && row?.webhookSecretSealed === sealed ? { webhookSecret: secret } : {};
}

/** A new signing secret, returned this once; the old one stops signing at once. */
export async function rotateWebhookSecret(db: Db, input: { userId: number; now: Date; sealer: Sealing }): Promise<string> {
  const secret = newWebhookSecret();
  const [row] = await db
    .update(alertSettings)
    .set({ webhookSecretSealed: input.sealer.seal(secret), updatedAt: input.now })
    .where(and(eq(alertSettings.userId, input.userId), isNotNull(alertSettings.webhookUrl)))
    .returning({ userId: alertSettings.userId });
  if (!row) throw AppError.badRequest(ALERT_MESSAGES.noWebhook, ERROR_CODES.validation);
  return secret;
}

/**
 * Queues a test event to the user's webhook; the alerts job sends it at once, and once. One at a
 * time: while one is on its way, another is refused (drizzle/0017). `takeAllowance` counts it
 * against the user's hourly limit once the checks pass, so a request refused for having no webhook
 * or one on its way uses none of the hour's. Two requests at the same moment can both pass the
 * check; the one the insert then refuses has used one.
 */
export async function queueTestEvent(db: Db, input: { userId: number; now: Date; takeAllowance: () => Promise<void> }): Promise<void> {
  const row = await settingsRow(db, input.userId);
  if (!row?.webhookUrl) throw AppError.badRequest(ALERT_MESSAGES.noWebhook, ERROR_CODES.validation);
  const onItsWay = () => AppError.tooManyRequests(ALERT_MESSAGES.testEventOnItsWay, TEST_EVENT_RETRY_SECONDS);
  const pendingTest = and(eq(alertDeliveries.userId, input.userId), eq(alertDeliveries.eventType, ALERT_EVENT_TYPES.test), eq(alertDeliveries.status, "pending"));
  if ((await db.select({ id: alertDeliveries.id }).from(alertDeliveries).where(pendingTest).limit(1)).length > 0) throw onItsWay();
  await input.takeAllowance();
  const queued = await db
    .insert(alertDeliveries)
    .values({
      userId: input.userId,
      eventId: `evt_test_${randomToken(12)}`,
      eventType: ALERT_EVENT_TYPES.test,
      channel: "webhook",
      payload: "{}",
      nextAttemptAt: input.now,
      createdAt: input.now,
    })
    .onConflictDoNothing({ target: alertDeliveries.userId, where: sql.raw(`event_type = '${ALERT_EVENT_TYPES.test}' and status = 'pending'`) })
    .returning({ id: alertDeliveries.id });
  if (queued.length === 0) throw onItsWay();
}
