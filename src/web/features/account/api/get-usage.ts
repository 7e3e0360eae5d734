import { queryOptions } from "@tanstack/react-query";
import { USAGE_DEFAULT_DAYS, type Usage } from "#shared/account";
import { api } from "../../../lib/http";

/** Days start at the reader's midnight: the offset is sent in minutes east of UTC. */
export function getUsage(days = USAGE_DEFAULT_DAYS): Promise<Usage> {
  return api<Usage>("/api/v1/console/usage", { query: { days, tzOffset: -new Date().getTimezoneOffset() } });
}

export function usageQueryOptions(token: string | null) {
  return queryOptions({ queryKey: ["usage", token], queryFn: () => getUsage() });
}
