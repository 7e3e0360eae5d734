import { infiniteQueryOptions } from "@tanstack/react-query";
import type { BillingPage } from "#shared/billing";
import type { DateRange } from "../../../lib/date-range";
import { api } from "../../../lib/http";

export const BILLING_PATH = "/api/v1/console/billing";
export const BILLING_CSV_PATH = "/api/v1/console/billing.csv";

export interface BillingFilter extends DateRange {
  toolId?: string;
  keyId?: number;
}

export function listBilling(filter: BillingFilter, cursor?: string): Promise<BillingPage> {
  return api<BillingPage>(BILLING_PATH, { query: { ...filter, cursor, limit: 20 } });
}

/** Keyed by the session too: another user signed in on this page never sees these rows. */
export function billingQueryOptions(filter: BillingFilter, token: string | null) {
  return infiniteQueryOptions({
    queryKey: ["billing", token, filter],
    queryFn: ({ pageParam }) => listBilling(filter, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}
