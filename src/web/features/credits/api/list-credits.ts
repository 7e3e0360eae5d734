import { infiniteQueryOptions } from "@tanstack/react-query";
import type { CreditsPage } from "#shared/money-api";
import type { DateRange } from "../../../lib/date-range";
import { api } from "../../../lib/http";

export const CREDITS_PATH = "/api/v1/console/credits";
export const CREDITS_CSV_PATH = "/api/v1/console/credits.csv";
export const CREDITS_PAGE_SIZE = 20;

export function listCredits(range: DateRange, cursor?: string, limit = CREDITS_PAGE_SIZE): Promise<CreditsPage> {
  return api<CreditsPage>(CREDITS_PATH, { query: { ...range, cursor, limit } });
}

export const creditsQueryKey = ["credits"] as const;

/** Newest first, one page per "load more"; keyed by the session too, like every per-user list. */
export function creditsQueryOptions(range: DateRange, token: string | null) {
  return infiniteQueryOptions({
    queryKey: [...creditsQueryKey, token, range],
    queryFn: ({ pageParam }) => listCredits(range, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}
