import { z } from "zod";

/** Environment variables of the low-balance alerts; config.ts spreads them into its schema. */
export const alertsEnv = {
  ALERT_SMS_PER_USER_PER_DAY: z.coerce.number().int().min(0).max(100).default(3),
  ALERT_JOB_SECONDS: z.coerce.number().int().min(1).max(3600).default(5),
  ALERT_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(5000),
  ALERT_WEBHOOK_ALLOW_LOOPBACK: z.stringbool().default(false),
  ALIYUN_SMS_ALERT_TEMPLATE_CODE: z.string().optional(),
  TENCENT_SMS_ALERT_TEMPLATE_ID: z.string().optional(),
  ALIYUN_SMS_LOT_TEMPLATE_CODE: z.string().optional(),
  TENCENT_SMS_LOT_TEMPLATE_ID: z.string().optional(),
};

type AlertsEnv = z.output<z.ZodObject<typeof alertsEnv>>;

export function alertsConfigFrom(e: AlertsEnv) {
  return {
    /** Alert SMS one user may receive in a Beijing day; 0 turns alert SMS off. */
    smsPerUserPerDay: e.ALERT_SMS_PER_USER_PER_DAY,
    /** How often the alerts job scans the ledger and sends what is due. */
    jobIntervalMs: e.ALERT_JOB_SECONDS * 1000,
    webhookTimeoutMs: e.ALERT_WEBHOOK_TIMEOUT_MS,
    /** Admits http:// webhooks to loopback addresses, for tests with a local receiver. Off in production. */
    webhookAllowLoopback: e.ALERT_WEBHOOK_ALLOW_LOOPBACK,
    /** The approved template of the low-balance SMS for SMS_PROVIDER=aliyun or tencent; unset: no alert SMS from that provider. */
    smsTemplate: { aliyun: e.ALIYUN_SMS_ALERT_TEMPLATE_CODE || null, tencent: e.TENCENT_SMS_ALERT_TEMPLATE_ID || null },
    /** The approved template of the lot-expiry reminder SMS (issue 37); unset: no reminders from that provider. */
    lotSmsTemplate: { aliyun: e.ALIYUN_SMS_LOT_TEMPLATE_CODE || null, tencent: e.TENCENT_SMS_LOT_TEMPLATE_ID || null },
  };
}

export type AlertsConfig = ReturnType<typeof alertsConfigFrom>;
