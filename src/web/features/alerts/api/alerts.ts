import type { AlertSettings, AlertSettingsInput } from "../../../../shared/alerts";
import { api } from "../../../lib/http";

export const ALERTS_PATH = "/api/v1/console/alerts";

export function alertsQuery(token: string | null) {
  return { queryKey: ["alerts", token], queryFn: () => api<AlertSettings>(ALERTS_PATH) };
}

export function saveAlerts(body: AlertSettingsInput): Promise<AlertSettings> {
  return api<AlertSettings>(ALERTS_PATH, { method: "PUT", body });
}

export function rotateWebhookSecret(): Promise<{ webhookSecret: string }> {
  return api<{ webhookSecret: string }>(`${ALERTS_PATH}/webhook-secret`, { method: "POST" });
}

export function sendTestEvent(): Promise<{ queued: true }> {
  return api<{ queued: true }>(`${ALERTS_PATH}/test`, { method: "POST" });
}
