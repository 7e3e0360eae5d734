import { queryOptions } from "@tanstack/react-query";
import type { KeptTry, TryEvent, TryRequest } from "#shared/tries";
import { api, newIdempotencyKey, reportFailure } from "../../../lib/http";
import { useSession } from "../../../lib/session-store";
import { siteConfig } from "../../../lib/site-config";

export const TRIES_PATH = "/api/v1/console/tries";
export const triesQueryKey = ["tries"] as const;

/** The user's last tries, kept on the server; keyed by the session, as every console list. */
export function triesQueryOptions(token: string | null) {
  return queryOptions({ queryKey: [...triesQueryKey, token], queryFn: () => api<{ tries: KeptTry[] }>(TRIES_PATH).then((r) => r.tries) });
}

/**
 * Sends a try and hands each line of its answer to `onEvent` as it arrives (the answer streams,
 * so this is a plain fetch, not the shared client, which reads bodies whole). A refusal of the try
 * itself (a key not found, too many tries) is reported as every console call's is (SPEC.md §8)
 * and rejects. Not retried: a try may cost money, and a retry with the same Idempotency-Key would
 * only get the first answer back.
 */
export async function sendTry(request: TryRequest, onEvent: (event: TryEvent) => void, signal?: AbortSignal): Promise<void> {
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/x-ndjson", "idempotency-key": newIdempotencyKey() };
  const token = useSession.getState().token;
  if (token) headers.authorization = `Bearer ${token}`;
  let response: Response;
  try {
    response = await fetch(`${siteConfig.apiBase}${TRIES_PATH}`, { method: "POST", headers, body: JSON.stringify(request), signal });
  } catch (error) {
    if (!signal?.aborted) reportFailure(null, undefined);
    throw error;
  }
  if (!response.ok || !response.body) {
    const data: unknown = await response.json().catch(() => undefined);
    reportFailure(response.status, data);
    throw new Error(`try refused: HTTP ${response.status}`);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let pending = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    pending += value;
    let newline = pending.indexOf("\n");
    while (newline >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (line) onEvent(JSON.parse(line) as TryEvent);
      newline = pending.indexOf("\n");
    }
  }
}
