import { queryOptions } from "@tanstack/react-query";
import type { AlertSettings, AlertSettingsInput } from "#shared/alerts";
import { api } from "../../../lib/http";

export const ALERTS_PATH = "/api/v1/console/alerts";

export const alertsQueryKey = ["alerts"] as const;

export function alertsQueryOptions(token: string | null) {
  return queryOptions({ queryKey: [...alertsQueryKey, token], queryFn: () => api<AlertSettings>(ALERTS_PATH) });
}

export function saveAlerts(body: AlertSettingsInput, idempotencyKey: string): Promise<AlertSettings> {
  // A refused field is shown beside it (alerts-card.tsx). A resend under the same key is answered as the first
  // save was, the first webhook URL's signing secret included.
  return api<AlertSettings>(ALERTS_PATH, { method: "PUT", body, quiet: [400], idempotencyKey });
}

export function rotateWebhookSecret(): Promise<{ webhookSecret: string }> {
  return api<{ webhookSecret: string }>(`${ALERTS_PATH}/webhook-secret`, { method: "POST" });
}

export function sendTestEvent(): Promise<{ queued: true }> {
  return api<{ queued: true }>(`${ALERTS_PATH}/test`, { method: "POST" });
}
