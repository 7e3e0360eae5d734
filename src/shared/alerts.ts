import { z } from "zod";
import { spendLimitProblem } from "./api-keys";
import { MAX_AMOUNT } from "./money";

export const ALERT_CHANNELS = ["sms", "webhook"] as const;
export const ALERT_DELIVERY_STATUSES = ["pending", "delivered", "failed", "skipped"] as const;
export type AlertDeliveryStatus = (typeof ALERT_DELIVERY_STATUSES)[number];

/** The event types a webhook receives. */
export const ALERT_EVENT_TYPES = { lowBalance: "balance.low", lotExpiring: "lot.expiring", test: "test" } as const;

export const WEBHOOK_URL_MAX = 2048;

export const ALERT_MESSAGES = {
  thresholdMalformed: "threshold must be an amount such as 100 or 12.50 (at most 6 decimals)",
  thresholdNotPositive: "threshold must be greater than 0",
  thresholdTooLarge: `threshold must be no more than ${MAX_AMOUNT}`,
  webhookUrlMalformed: "webhook URL must be an https:// address",
  webhookUrlTooLong: `webhook URL is longer than ${WEBHOOK_URL_MAX} characters`,
  noWebhook: "set a webhook URL first",
  testEventOnItsWay: "a test event is already on its way; send another once it has been delivered",
} as const;

/**
 * What the form can tell about a webhook URL before sending it; whether the server accepts the
 * address (https, a public host, no credentials) only the server decides.
 */
export function webhookUrlShapeProblem(input: string): "tooLong" | "malformed" | null {
  const text = input.trim();
  if (text.length > WEBHOOK_URL_MAX) return "tooLong";
  return URL.canParse(text) && /^https?:$/.test(new URL(text).protocol) ? null : "malformed";
}

/** A threshold is an amount greater than 0, the same rule as a key's spend limit. */
export const thresholdProblem = spendLimitProblem;

/** PUT /api/v1/console/alerts */
export const alertSettingsBody = z.strictObject({
  threshold: z
    .string()
    .superRefine((s, ctx) => {
      const problem = thresholdProblem(s);
      if (problem === "malformed") ctx.addIssue({ code: "custom", message: ALERT_MESSAGES.thresholdMalformed });
      if (problem === "notPositive") ctx.addIssue({ code: "custom", message: ALERT_MESSAGES.thresholdNotPositive });
      if (problem === "tooLarge") ctx.addIssue({ code: "custom", message: ALERT_MESSAGES.thresholdTooLarge });
    })
    .transform((s) => s.trim())
    .nullable()
    .describe("Alert when a charge takes the balance below this amount (decimal string); null turns alerts off"),
  webhookUrl: z
    .string()
    .trim()
    .max(WEBHOOK_URL_MAX, ALERT_MESSAGES.webhookUrlTooLong)
    .refine((s) => URL.canParse(s), ALERT_MESSAGES.webhookUrlMalformed)
    .nullable()
    .describe("An https:// URL that receives a signed POST for each alert; null for SMS only"),
});
export type AlertSettingsInput = z.input<typeof alertSettingsBody>;

export const alertAttemptSchema = z.object({
  at: z.string(),
  httpStatus: z.number().int().nullable(),
  error: z.string().nullable(),
});

export const alertDeliverySchema = z.object({
  id: z.number().int(),
  eventId: z.string(),
  eventType: z.string(),
  channel: z.enum(ALERT_CHANNELS),
  status: z.enum(ALERT_DELIVERY_STATUSES),
  createdAt: z.string(),
  deliveredAt: z.string().nullable(),
  nextAttemptAt: z.string().nullable().describe("When a failed webhook is tried again; null when no retry is due"),
  lastError: z.string().nullable(),
  attempts: z.array(alertAttemptSchema),
});
export type AlertDelivery = z.infer<typeof alertDeliverySchema>;

export const alertSettingsSchema = z.object({
  threshold: z.string().nullable(),
  webhookUrl: z.string().nullable(),
  hasWebhookSecret: z.boolean(),
  /** Present only in the answer that created or rotated the secret: it is shown this once. */
  webhookSecret: z.string().optional().describe("The whsec_ signing secret; returned only when it was just created or rotated"),
  smsPerDay: z.number().int().describe("The most alert SMS one user receives in a day"),
  deliveries: z.array(alertDeliverySchema).describe("The latest alerts sent or being sent, newest first"),
});
export type AlertSettings = z.infer<typeof alertSettingsSchema>;

export const webhookSecretSchema = z.object({ webhookSecret: z.string() });
