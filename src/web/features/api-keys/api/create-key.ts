import type { CreateApiKeyInput, CreatedApiKey } from "#shared/api-keys";
import { api } from "../../../lib/http";
import { KEYS_PATH } from "../../../lib/api/list-keys";

/**
 * POST /api/v1/console/keys. The dialog sends one Idempotency-Key per filled form: sent again within
 * ten minutes, it answers with the key already made and a new secret for it (the stored answer keeps
 * no secret; the server reissues it).
 */
export function createKey({ body, idempotencyKey }: { body: CreateApiKeyInput; idempotencyKey: string }): Promise<CreatedApiKey> {
  return api<CreatedApiKey>(KEYS_PATH, { method: "POST", body, idempotencyKey });
}
