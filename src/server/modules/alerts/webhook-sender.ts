import type { LookupFunction } from "node:net";
import type { Agent } from "undici";
import { loadOnce } from "../../lib/load-once";
import { BlockedAddressError, guardedLookup, webhookUrlProblem, type GuardOptions } from "./address-guard";

/**
 * What the receiver said, or why there was no answer. Only a 2xx counts as delivered. `error` is
 * shown to the user in a few fixed wordings; `detail`, the system's own error, is for the log only.
 */
export type WebhookResult = { ok: boolean; httpStatus: number | null; error: string | null; detail?: string };

/** The most of a receiver's answer that is read; the rest is dropped. */
const MAX_RESPONSE_BYTES = 4096;
const undici = loadOnce(() => import("undici"));

export interface WebhookSender {
  send(url: string, headers: Record<string, string>, body: string): Promise<WebhookResult>;
  close(): Promise<void>;
}

/**
 * POSTs webhooks through an agent whose sockets resolve names with the address guard, so the
 * address checked is the one connected to. No redirects are followed (undici's `request` follows
 * none), the whole exchange has a timeout, and at most 4 KiB of the answer is read.
 */
export function createWebhookSender(options: GuardOptions & { timeoutMs: number; resolve?: LookupFunction }): WebhookSender {
  let agent: Agent | undefined;
  let closed = false;
  return {
    async send(url, headers, body) {
      const problem = webhookUrlProblem(url, options);
      if (problem) return { ok: false, httpStatus: null, error: problem };
      const { Agent, request } = await undici();
      if (closed) return { ok: false, httpStatus: null, error: "the server is shutting down" };
      agent ??= new Agent({
        connect: { lookup: guardedLookup(options, options.resolve), timeout: options.timeoutMs },
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
        connections: 16,
      });
      try {
        const answer = await request(url, {
          method: "POST",
          dispatcher: agent,
          headers: { ...headers, "content-type": "application/json", "user-agent": "Tollgate-Webhooks/1" },
          body,
          signal: AbortSignal.timeout(options.timeoutMs),
        });
        let read = 0;
        for await (const chunk of answer.body) {
          read += (chunk as Buffer).length;
          if (read >= MAX_RESPONSE_BYTES) {
            answer.body.destroy();
            break;
          }
        }
        const ok = answer.statusCode >= 200 && answer.statusCode < 300;
        return { ok, httpStatus: answer.statusCode, error: ok ? null : `the receiver answered ${answer.statusCode}` };
      } catch (error) {
        return { ok: false, httpStatus: null, ...describe(error, new URL(url).hostname) };
      }
    },
    close: async () => {
      closed = true;
      await agent?.close();
    },
  };
}

/**
 * The user's wording for a failed exchange: the resolver's and the socket's own messages name
 * addresses and tell an existing internal name from a missing one, so they go to the log only.
 */
function describe(error: unknown, host: string): { error: string; detail: string } {
  const e = error as { name?: string; message?: string; code?: string; cause?: unknown };
  const detail = [e, e.cause as typeof e | undefined]
    .filter((x) => x?.message)
    .map((x) => (x!.code ? `${x!.code}: ${x!.message}` : x!.message!))
    .join(" <- ")
    .slice(0, 500);
  if (e.name === "TimeoutError" || e.name === "AbortError" || e.code?.includes("TIMEOUT")) return { error: "no answer in time", detail };
  if (error instanceof BlockedAddressError) return { error: error.message, detail };
  return { error: `could not connect to ${host}`, detail };
}
