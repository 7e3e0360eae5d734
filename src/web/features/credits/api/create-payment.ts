import type { CreatePaymentBody, CreatePaymentResponse } from "#shared/money-api";
import { api } from "../../../lib/http";

/** POST /api/v1/console/payments: an order with the provider, answered with a pay page or a QR code. */
export function createPayment(body: CreatePaymentBody): Promise<CreatePaymentResponse> {
  return api<CreatePaymentResponse>("/api/v1/console/payments", { method: "POST", body });
}
