import { queryOptions } from "@tanstack/react-query";
import type { ApiKeyList } from "#shared/api-keys";
import { api } from "../http";

/** GET /api/v1/console/keys: the keys page lists them, the billing filter offers their names. */
export const KEYS_PATH = "/api/v1/console/keys";

export function listKeys(): Promise<ApiKeyList> {
  return api<ApiKeyList>(KEYS_PATH);
}

export const keysQueryKey = ["api-keys"] as const;

/** Keyed by the session token, so another sign-in never sees the previous user's cached keys. */
export function keysQueryOptions(token: string | null) {
  return queryOptions({ queryKey: [...keysQueryKey, token], queryFn: listKeys });
}
