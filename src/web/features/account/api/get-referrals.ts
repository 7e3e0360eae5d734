import type { Referrals } from "../../../../shared/account";
import { api } from "../../../lib/http";

export function getReferrals(): Promise<Referrals> {
  return api<Referrals>("/api/v1/console/referrals");
}

export function referralsQuery(token: string | null) {
  return { queryKey: ["referrals", token], queryFn: getReferrals };
}
