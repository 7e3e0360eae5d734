import type { ApiKeyList } from "../../../../shared/api-keys";
import { api } from "../../../lib/http";

export const KEYS_PATH = "/api/v1/console/keys";

export function listKeys(): Promise<ApiKeyList> {
  return api<ApiKeyList>(KEYS_PATH);
}

/** Keyed by the session token, so another sign-in never sees the previous user's cached keys. */
export function keysQuery(token: string | null) {
  return { queryKey: ["api-keys", token], queryFn: listKeys };
}
