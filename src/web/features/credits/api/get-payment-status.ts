import { queryOptions } from "@tanstack/react-query";
import type { PaymentStatus } from "#shared/money-api";
import { api } from "../../../lib/http";

/** GET /api/v1/console/payments/:orderId: the order's state; the server checks a pending order with the provider. */
export function getPaymentStatus(orderId: string): Promise<PaymentStatus> {
  return api<PaymentStatus>(`/api/v1/console/payments/${encodeURIComponent(orderId)}`);
}

export function paymentStatusQueryOptions(orderId: string) {
  return queryOptions({ queryKey: ["payment-status", orderId], queryFn: () => getPaymentStatus(orderId) });
}
