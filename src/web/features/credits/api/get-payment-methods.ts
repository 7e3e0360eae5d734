import { queryOptions } from "@tanstack/react-query";
import type { PaymentMethods } from "#shared/money-api";
import { api } from "../../../lib/http";

export function getPaymentMethods(): Promise<PaymentMethods> {
  return api<PaymentMethods>("/api/v1/console/payment-methods");
}

export function paymentMethodsQueryOptions() {
  return queryOptions({ queryKey: ["payment-methods"], queryFn: getPaymentMethods, staleTime: 5 * 60_000 });
}
