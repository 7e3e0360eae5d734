import type { FastifyInstance } from "fastify";
import { createSealer } from "../../lib/crypto";
import { createSmsProvider } from "../../providers/sms/index";
import { HOUR_MS } from "../../lib/database-limits";
import { findExpiringLots } from "./lot-expiry";
import { deliverDue, findCrossings, FINISHED_DELIVERY_RETENTION_MS, purgeFinishedDeliveries, type DeliveryDeps } from "./outbox";
import { createWebhookSender } from "./webhook-sender";

export interface AlertsJob {
  /** Scans for crossings and sends what is due, once; a run already under way is joined, then run again. */
  runOnce(): Promise<void>;
  /** Starts a run soon without waiting for it (the "send a test event" button). */
  kick(): void;
  openSecret(sealed: string): string;
  /** What another worker's job sends with: its own SMS provider and webhook client over the same database. */
  workerDeps(): DeliveryDeps;
  sealSecret(plain: string): string;
}

declare module "fastify" {
  interface FastifyInstance {
    alertsJob: AlertsJob;
  }
}

export const WEBHOOK_SECRET_PURPOSE = "alert-webhook-secret";

/** The periodic alerts job: every ALERT_JOB_SECONDS, outside any request or charge. */
export function createAlertsJob(app: FastifyInstance): AlertsJob {
  const { alerts } = app.config;
  const sealer = createSealer(app.config.sessionSecret, WEBHOOK_SECRET_PURPOSE);
  const webhooks = createWebhookSender({ allowLoopback: alerts.webhookAllowLoopback, timeoutMs: alerts.webhookTimeoutMs });
  const deps: DeliveryDeps = {
    db: app.db,
    config: alerts,
    sms: createSmsProvider(app.config.auth.sms, { dataDir: app.config.dataDir, siteName: app.config.siteName }),
    webhooks,
    openSecret: (sealed) => sealer.open(sealed),
    toolWords: (toolId, units) => {
      const tool = app.catalog.get(toolId);
      const count = units.toLocaleString("en-US");
      return { toolName: tool?.name ?? toolId, unitsLeft: tool?.unit ? `${count} units (${tool.unit})` : `${count} calls` };
    },
    log: app.log,
    attempted: (channel, result) => app.metrics.count("alertDeliveries", { channel, result }),
  };
  let running: Promise<void> | null = null;
  let again = false;
  const now = () => app.clock.now();

  // Crossings are looked for before every batch of deliveries, so a long queue (a receiver that
  // times out) does not hold back the alerts of charges made meanwhile.
  async function run(): Promise<void> {
    do {
      again = false;
      await findExpiringLots(app.db, now());
      do await findCrossings(app.db, now());
      while ((await deliverDue(deps, now)) > 0);
    } while (again);
  }

  function runOnce(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = run().finally(() => (running = null));
    return running;
  }

  const kick = () => void runOnce().catch((error: unknown) => app.log.warn({ err: error }, "alerts job failed"));
  app.every("alerts", alerts.jobIntervalMs, runOnce);
  app.every("purge finished alert deliveries", HOUR_MS, () =>
    purgeFinishedDeliveries(app.db, new Date(now().getTime() - FINISHED_DELIVERY_RETENTION_MS)).then(() => undefined),
  );
  app.addHook("onClose", async () => {
    // A run under way finishes before the webhook client closes; its failure was logged where it ran.
    await running?.catch(() => undefined);
    await webhooks.close();
  });
  const workerDeps = (): DeliveryDeps => ({ ...deps, sms: createSmsProvider(app.config.auth.sms, { dataDir: app.config.dataDir, siteName: app.config.siteName }), webhooks: createWebhookSender({ allowLoopback: alerts.webhookAllowLoopback, timeoutMs: alerts.webhookTimeoutMs }) });
  return { runOnce, kick, openSecret: deps.openSecret, workerDeps, sealSecret: (plain) => sealer.seal(plain) };
}
