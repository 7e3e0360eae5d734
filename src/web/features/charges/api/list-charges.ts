import { infiniteQueryOptions } from "@tanstack/react-query";
import type { ChargesPage } from "../../../../shared/money-api";
import { api } from "../../../lib/http";

export const CHARGES_PATH = "/api/v1/console/charges";
export const CHARGES_PAGE_SIZE = 20;

/** A time range as ISO instants: `from` inclusive, `to` exclusive. */
export interface ChargesRange {
  from?: string;
  to?: string;
}

export function listCharges(range: ChargesRange, cursor?: string, limit = CHARGES_PAGE_SIZE): Promise<ChargesPage> {
  return api<ChargesPage>(CHARGES_PATH, { query: { ...range, cursor, limit } });
}

export const chargesQueryKey = ["charges"] as const;

/** Newest first, one page per "load more". */
export function chargesQueryOptions(range: ChargesRange) {
  return infiniteQueryOptions({
    queryKey: [...chargesQueryKey, range],
    queryFn: ({ pageParam }) => listCharges(range, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}
