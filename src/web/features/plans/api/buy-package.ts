import type { PurchaseResponse } from "#shared/plans";
import { api } from "../../../lib/http";

/**
 * POST /api/v1/console/packages/purchase. The client sends one Idempotency-Key per purchase (its
 * retry carries the same one), so a purchase is never made twice; the dialog shows a refusal itself.
 */
export function buyPackage(toolId: string, packageId: string): Promise<PurchaseResponse> {
  return api<PurchaseResponse>("/api/v1/console/packages/purchase", { method: "POST", body: { toolId, packageId }, quiet: [402, 404] });
}
