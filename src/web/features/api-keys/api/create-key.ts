import type { CreateApiKeyInput, CreatedApiKey } from "#shared/api-keys";
import { api } from "../../../lib/http";
import { KEYS_PATH } from "../../../lib/api/list-keys";

export function createKey(body: CreateApiKeyInput): Promise<CreatedApiKey> {
  return api<CreatedApiKey>(KEYS_PATH, { method: "POST", body });
}
