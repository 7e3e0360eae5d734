import type { CreateApiKeyInput, CreatedApiKey } from "#shared/api-keys";
import { api } from "../../../lib/http";
import { KEYS_PATH } from "../../../lib/api/list-keys";

/**
 * POST /api/v1/console/keys. The dialog sends one Idempotency-Key per filled form, so sending it
 * again answers with the key already made, its secret included (the server keeps the answer sealed).
 */
export function createKey({ body, idempotencyKey }: { body: CreateApiKeyInput; idempotencyKey: string }): Promise<CreatedApiKey> {
  return api<CreatedApiKey>(KEYS_PATH, { method: "POST", body, idempotencyKey });
}
