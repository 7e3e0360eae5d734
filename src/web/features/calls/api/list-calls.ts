import { infiniteQueryOptions, queryOptions } from "@tanstack/react-query";
import type { CallDetail, CallOutcome, CallsPage } from "#shared/calls";
import { REQUEST_ID_MAX_LENGTH } from "#shared/request-ids";
import type { DateRange } from "../../../lib/date-range";
import { api } from "../../../lib/http";

export const CALLS_PATH = "/api/v1/console/calls";
export const CALLS_CSV_PATH = "/api/v1/console/calls.csv";

export interface CallsFilter extends DateRange {
  toolId?: string;
  keyId?: number;
  outcome?: CallOutcome;
  status?: "2xx" | "4xx" | "5xx";
  charged?: "true" | "false";
  slowerThanMs?: number;
}

export function listCalls(filter: CallsFilter, cursor?: string): Promise<CallsPage> {
  return api<CallsPage>(CALLS_PATH, { query: { ...filter, cursor, limit: 20 } });
}

/** Keyed by the session too: another user signed in on this page never sees these rows. */
export function callsQueryOptions(filter: CallsFilter, token: string | null) {
  return infiniteQueryOptions({
    queryKey: ["calls", token, filter],
    queryFn: ({ pageParam }) => listCalls(filter, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

/**
 * One call by its exact request id; null when none of the user's calls has it (the page says so
 * itself), as for an id longer than any request id, which the server would refuse (400) unasked.
 */
export function callDetailQueryOptions(requestId: string, token: string | null) {
  return queryOptions({
    queryKey: ["call", token, requestId],
    queryFn: () =>
      requestId.length > REQUEST_ID_MAX_LENGTH
        ? Promise.resolve(null)
        : api<CallDetail>(`${CALLS_PATH}/${encodeURIComponent(requestId)}`, { quiet: [404] }).catch((error: unknown) => {
            if ((error as { status?: number }).status === 404) return null;
            throw error;
          }),
  });
}
