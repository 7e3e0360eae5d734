import type { ApiKey, UpdateApiKeyInput } from "#shared/api-keys";
import { api } from "../../../lib/http";
import { KEYS_PATH } from "../../../lib/api/list-keys";

export function updateKey(id: number, body: UpdateApiKeyInput, idempotencyKey?: string): Promise<ApiKey> {
  return api<ApiKey>(`${KEYS_PATH}/${id}`, { method: "PATCH", body, idempotencyKey });
}
