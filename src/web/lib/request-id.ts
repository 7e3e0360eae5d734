/**
 * A request id as the tables show it, whole when copied: its last 8 characters. Ids are UUIDv7
 * (decision 064), time first, so their first 8 were the same for every call within about a
 * minute and the tables showed one id for a whole burst of calls; the tail is random.
 */
export function shortRequestId(id: string): string {
  return id.slice(-8);
}
