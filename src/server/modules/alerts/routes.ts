import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { alertSettingsBody, alertSettingsSchema, webhookSecretSchema } from "#shared/alerts";
import { noQuery } from "../../lib/no-query";
import { takeHourlyAllowance } from "../../lib/rate-limiter";
import { answerWithSecret, SECRET_REPLAY_TTL_MS } from "../../lib/secret-answers";
import { getAlertSettings, queueTestEvent, rotateWebhookSecret, saveAlertSettings } from "./settings";

/** A replayed answer never holds a stored signing secret: the replay gets a newly rotated one. */
const WITHHELD = { kind: "webhook_secret", fields: ["webhookSecret"] };

const tags = ["alerts"];
/** Each test event is one signed POST to an address the user chose: a few an hour show what a receiver answers. */
const TEST_EVENTS_PER_HOUR = 10;
/** Low-balance alerts on /console/info: the threshold, the webhook and its secret, a test event, and what was sent. */
const alertRoutes: FastifyPluginAsyncZod = async (app) => {
  const job = app.alertsJob;
  const guard = { allowLoopback: app.config.alerts.webhookAllowLoopback };
  const sealer = { seal: job.sealSecret };
  const smsPerDay = app.config.alerts.smsPerUserPerDay;
  app.secretReissuers.set(WITHHELD.kind, async (userId, now) => ({ webhookSecret: await rotateWebhookSecret(app.db, { userId, now, sealer }) }));

  app.get(
    "/console/alerts",
    { schema: { tags, summary: "Your low-balance alert settings and the latest alerts sent", querystring: noQuery, response: { 200: alertSettingsSchema } } },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      return getAlertSettings(app.db, request.user.userId, smsPerDay);
    },
  );

  app.put(
    "/console/alerts",
    {
      config: { idempotencyTtlMs: SECRET_REPLAY_TTL_MS },
      schema: {
        tags,
        summary: "Set the alert threshold and webhook URL; the first webhook URL's signing secret is in this answer only",
        body: alertSettingsBody,
        response: { 200: alertSettingsSchema },
      },
    },
    async (request, reply) => {
      const userId = request.user.userId;
      const saved = await saveAlertSettings(app.db, { userId, body: request.body, now: app.clock.now(), guard, sealer });
      reply.header("cache-control", "no-store");
      if ("webhookSecret" in saved && saved.webhookSecret) answerWithSecret(request, reply, { ...WITHHELD, ref: userId });
      return { ...(await getAlertSettings(app.db, userId, smsPerDay)), ...saved };
    },
  );

  app.post(
    "/console/alerts/webhook-secret",
    {
      config: { idempotencyTtlMs: SECRET_REPLAY_TTL_MS },
      schema: { tags, summary: "Replace the webhook signing secret; the new one is in this answer only", response: { 200: webhookSecretSchema } },
    },
    async (request, reply) => {
      answerWithSecret(request, reply, { ...WITHHELD, ref: request.user.userId });
      return { webhookSecret: await rotateWebhookSecret(app.db, { userId: request.user.userId, now: app.clock.now(), sealer }) };
    },
  );

  app.post(
    "/console/alerts/test",
    {
      schema: { tags, summary: "Send a signed test event to your webhook now", response: { 202: z.object({ queued: z.literal(true) }) } },
    },
    async (request, reply) => {
      const userId = request.user.userId;
      const now = app.clock.now();
      const takeAllowance = () =>
        takeHourlyAllowance(app.rateLimiter, { key: `alert-test:${userId}`, perHour: TEST_EVENTS_PER_HOUR, what: "test events", nowMs: now.getTime() });
      await queueTestEvent(app.db, { userId, now, takeAllowance });
      job.kick();
      return reply.code(202).send({ queued: true });
    },
  );
};

export default alertRoutes;
