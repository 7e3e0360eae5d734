import { queryOptions } from "@tanstack/react-query";
import type { Referrals } from "#shared/account";
import { api } from "../../../lib/http";

export function getReferrals(): Promise<Referrals> {
  return api<Referrals>("/api/v1/console/referrals");
}

export function referralsQueryOptions(token: string | null) {
  return queryOptions({ queryKey: ["referrals", token], queryFn: getReferrals });
}
