import { queryOptions } from "@tanstack/react-query";
import type { LotView } from "#shared/plans";
import { api } from "../http";

export const lotsQueryKey = ["lots"] as const;

/** GET /api/v1/console/lots: the user's free quotas and packages, in the order calls draw them. */
export function listLots(): Promise<LotView[]> {
  return api<{ lots: LotView[] }>("/api/v1/console/lots").then((body) => body.lots);
}

/** Keyed by the session token, so another sign-in never sees the previous user's lots. */
export function lotsQueryOptions(token: string | null) {
  return queryOptions({ queryKey: [...lotsQueryKey, token], queryFn: listLots });
}
