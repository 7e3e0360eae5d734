import { infiniteQueryOptions } from "@tanstack/react-query";
import type { ChargesPage } from "#shared/money-api";
import type { DateRange } from "../../../lib/date-range";
import { api } from "../../../lib/http";

export const CHARGES_PATH = "/api/v1/console/charges";
export const CHARGES_CSV_PATH = "/api/v1/console/charges.csv";
export const CHARGES_PAGE_SIZE = 20;

export function listCharges(range: DateRange, cursor?: string, limit = CHARGES_PAGE_SIZE): Promise<ChargesPage> {
  return api<ChargesPage>(CHARGES_PATH, { query: { ...range, cursor, limit } });
}

export const chargesQueryKey = ["charges"] as const;

/** Newest first, one page per "load more". */
export function chargesQueryOptions(range: DateRange) {
  return infiniteQueryOptions({
    queryKey: [...chargesQueryKey, range],
    queryFn: ({ pageParam }) => listCharges(range, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}
