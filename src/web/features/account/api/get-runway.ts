import { queryOptions } from "@tanstack/react-query";
import type { Runway } from "#shared/account";
import { api } from "../../../lib/http";

export function getRunway(): Promise<Runway> {
  return api<Runway>("/api/v1/console/runway");
}

export const runwayQueryKey = ["runway"] as const;

/**
 * Not keyed by the balance: the first answer does not wait for the user info (both leave together),
 * and the card refetches it when the balance it shows changes (a charge, a top-up).
 */
export function runwayQueryOptions(token: string | null) {
  return queryOptions({ queryKey: [...runwayQueryKey, token], queryFn: getRunway });
}
