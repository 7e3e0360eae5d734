/* What the server, the CLI and the console know of a request id, without zod: the console's pages import it, and shared/calls.ts is schemas. */

/**
 * A request id's length: every id the server has made (lib/request-id.ts) and stored is a UUID.
 * A longer one is refused as such (400), not looked up and answered 404 with all of it repeated.
 */
export const REQUEST_ID_MAX_LENGTH = 36;
export const REQUEST_ID_TOO_LONG = `is longer than any request id (a UUID, ${REQUEST_ID_MAX_LENGTH} characters)`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A request id as the gateway wrote it: a UUID read in either case (a user may report it as a tool
 * of theirs prints it, upper-case) and without the spaces a paste brings; anything else as given.
 */
export function normalRequestId(given: string): string {
  const id = given.trim();
  return UUID.test(id) ? id.toLowerCase() : id;
}

/**
 * A request id as the console's tables show it, whole when copied: its last 8 characters. Ids are
 * UUIDv7 (decision 064), time first, so their first 8 were the same for every call within about a
 * minute and the tables showed one id for a whole burst of calls; the tail is random.
 */
export function shortRequestId(id: string): string {
  return id.slice(-8);
}
