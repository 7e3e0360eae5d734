import { createHmac, randomBytes } from "node:crypto";

export const WEBHOOK_SECRET_PREFIX = "whsec_";

/** A Standard Webhooks secret: `whsec_` and 24 random bytes in base64. */
export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(24).toString("base64")}`;
}

/**
 * The Standard Webhooks headers for one message: HMAC-SHA256, keyed with the secret's base64
 * part, over `id.timestamp.body`; the signature header is `v1,<base64>`.
 */
export function signWebhook(secret: string, message: { id: string; timestamp: number; body: string }): Record<string, string> {
  const key = Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), "base64");
  const signature = createHmac("sha256", key).update(`${message.id}.${message.timestamp}.${message.body}`).digest("base64");
  return {
    "webhook-id": message.id,
    "webhook-timestamp": String(message.timestamp),
    "webhook-signature": `v1,${signature}`,
  };
}
