import type { RedeemResponse } from "#shared/money-api";
import { api } from "../../../lib/http";

/** POST /api/v1/console/redeem; the form shows the server's refusal itself (400, 429). */
export function redeemCode(code: string): Promise<RedeemResponse> {
  return api<RedeemResponse>("/api/v1/console/redeem", { method: "POST", body: { code }, quiet: [400, 429] });
}
