import type { FastifyInstance } from "fastify";
import type { Response as InjectedResponse } from "light-my-request";
import { formatMoney } from "#shared/money";
import { isTextual, TRY_ANSWER_SHOWN_BYTES, TRY_KEPT_BODY_BYTES, TRY_SHOWN_HEADERS, type TryEvent } from "#shared/tries";
import type { z } from "zod";
import type { tryRequestSchema } from "#shared/tries";
import { CONSOLE_TRY_HEADER, type ConsoleTryTicket } from "../gateway/index";
import { balanceOf, keepTry, keptText } from "./kept";

export type TryInput = z.output<typeof tryRequestSchema>;

/** A try on its way: the gateway's answer, whose head has arrived, and the ticket it was made with. */
export interface StartedTry {
  input: TryInput;
  userId: number;
  answer: InjectedResponse;
  ticket: ConsoleTryTicket;
  /** The ticket was taken by the gateway's route (a request refused before it, as for memory, never reaches it). */
  taken: boolean;
}

const line = (event: TryEvent) => `${JSON.stringify(event)}\n`;

/**
 * Sends a try to the gateway's own route in this process, as an outside call would come: the
 * same URL, method, body, content type, Idempotency-Key and client address, with the try's token
 * in place of the key's secret (modules/gateway/console-tries.ts). Resolves once the answer's head
 * has arrived; its body streams.
 */
export async function startTry(
  app: FastifyInstance,
  request: { userId: number; keyHash: string; clientIp: string; idempotencyKey: string | undefined; input: TryInput },
): Promise<StartedTry> {
  const { input } = request;
  const ticket = app.consoleTries.openTry(request.keyHash);
  const headers: Record<string, string> = { accept: "*/*", [CONSOLE_TRY_HEADER]: ticket.token };
  if (input.contentType) headers["content-type"] = input.contentType;
  if (request.idempotencyKey !== undefined) headers["idempotency-key"] = request.idempotencyKey;
  const hasBody = input.method !== "GET";
  let answer: InjectedResponse;
  try {
    answer = await app.inject({
      method: input.method,
      url: `/v1/tools/${input.toolId}${input.path}`,
      headers,
      remoteAddress: request.clientIp,
      ...(hasBody ? { payload: input.body } : {}),
      payloadAsStream: true,
    });
  } catch (error) {
    ticket.close();
    throw error;
  }
  // Still open means the gateway's route never saw the request (refused before it, as for memory).
  const taken = !ticket.close();
  return { input, userId: request.userId, answer, ticket, taken };
}

/** Ends the gateway's answer as a caller who hangs up does: the gateway settles the call as one whose caller left. */
export function hangUp(started: StartedTry): void {
  (started.answer.raw.res as unknown as { destroy(): void }).destroy();
}

/** The answer's headers the page may see: a named few, never `Set-Cookie` or any other that could act on the site. */
function shownHeaders(answer: InjectedResponse): Record<string, string> {
  const shown: Record<string, string> = {};
  for (const name of TRY_SHOWN_HEADERS) {
    const value = answer.headers[name];
    if (value !== undefined) shown[name] = String(value);
  }
  return shown;
}

/**
 * The try's answer as the page reads it (application/x-ndjson): its head, its body's parts as the
 * tool sends them (up to `TRY_ANSWER_SHOWN_BYTES`; the rest is read but not relayed), then what it
 * cost, the balance after and how long it took; the try is kept for the user's history. A page
 * that goes away before the end ends the gateway's answer too, as a caller who hangs up.
 */
export async function* tryEvents(app: FastifyInstance, started: StartedTry, startedAt: number): AsyncGenerator<string> {
  const { answer, input } = started;
  const contentType = answer.headers["content-type"] === undefined ? null : String(answer.headers["content-type"]);
  const requestId = String(answer.headers["x-request-id"] ?? "");
  yield line({ type: "head", status: answer.statusCode, requestId, contentType, headers: shownHeaders(answer) });
  let relayed = 0;
  let truncated = false;
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let finished = false;
  try {
    for await (const chunk of answer.stream() as AsyncIterable<Buffer>) {
      if (keptBytes <= TRY_KEPT_BODY_BYTES) {
        kept.push(chunk);
        keptBytes += chunk.length;
      }
      if (relayed >= TRY_ANSWER_SHOWN_BYTES) {
        truncated = true;
        continue;
      }
      const part = chunk.subarray(0, TRY_ANSWER_SHOWN_BYTES - relayed);
      if (part.length < chunk.length) truncated = true;
      relayed += part.length;
      yield line({ type: "data", base64: part.toString("base64") });
    }
    finished = true;
  } finally {
    if (!finished) hangUp(started);
  }
  const trace = started.taken ? await started.ticket.ended : null;
  const totalMs = Math.round(performance.now() - startedAt);
  const amount = trace?.amount ?? 0n;
  const requestText = keptText(Buffer.from(input.body));
  const responseText = isTextual(contentType) ? keptText(Buffer.concat(kept)) : null;
  const tryId = await keepTry(app.db, {
    userId: started.userId,
    createdAt: app.clock.now(),
    apiKeyId: input.keyId,
    toolId: input.toolId,
    method: input.method,
    path: input.path,
    contentType: input.contentType,
    requestBody: requestText.text,
    requestTruncated: requestText.truncated,
    requestId,
    status: answer.statusCode,
    responseContentType: contentType,
    responseBody: responseText?.text ?? null,
    responseTruncated: responseText?.truncated ?? false,
    amount,
  });
  yield line({
    type: "end",
    outcome: trace?.outcome ?? "refused",
    amount: formatMoney(amount),
    balance: await balanceOf(app.db, started.userId),
    totalMs,
    upstreamMs: trace?.upstreamUs == null ? null : Math.round(trace.upstreamUs / 100) / 10,
    truncated,
    tryId,
  });
}
