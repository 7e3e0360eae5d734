import { queryOptions } from "@tanstack/react-query";
import type { Runway } from "#shared/account";
import { api } from "../../../lib/http";

export function getRunway(): Promise<Runway> {
  return api<Runway>("/api/v1/console/runway");
}

/** Keyed by the balance too, so the runway follows every charge and top-up the header shows. */
export function runwayQueryOptions(token: string | null, balance: string | undefined) {
  return queryOptions({ queryKey: ["runway", token, balance], queryFn: getRunway });
}
