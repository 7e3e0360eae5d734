import { eq, inArray } from "drizzle-orm";
import { beijingDateTime } from "#shared/beijing-time";
import { formatMoney } from "#shared/money";
import type { Db } from "../../db/client";
import { requiredReason } from "../../lib/cli/args";
import { UsageError, type CliCommand } from "../../lib/cli/command";
import { printRecord } from "../../lib/cli/records";
import { ledgerEntries, llmUsage, usageRecords } from "../../db/schema/index";
import { refundChargedCall } from "../ledger/index";
import { callLogEntry, type CallLogEntry } from "../calls/index";
import { escapeUnprintable } from "#shared/text";

function oneRequestId(positionals: string[]): string {
  const [requestId, ...extra] = positionals;
  if (!requestId || extra.length > 0) throw new UsageError("give one request id (the x-request-id a call was answered with)");
  return requestId;
}

const ms = (us: number | null) => (us === null ? "-" : `${us / 1000} ms`);

/** The call log's row (kept CALL_LOG_RETENTION_DAYS): outcome, upstream status and the start of a failed upstream's body, escaped. */
function logFields(log: CallLogEntry | null): [string, string][] {
  if (!log) return [["log", "none (older than the call log keeps, or never written)"]];
  return [
    ["outcome", `${log.outcome} (HTTP ${log.httpStatus})`],
    ["error", log.errorCode === null ? "-" : `${log.errorCode}: ${escapeUnprintable(log.errorMessage ?? "")}`],
    ["upstream", log.upstreamStatus === null ? "no answer" : `HTTP ${log.upstreamStatus}`],
    ["upstream body", log.upstreamErrorExcerpt === null ? "-" : escapeUnprintable(log.upstreamErrorExcerpt)],
    ["client", log.clientIp],
    ["took", `${ms(log.totalUs)} in all, ${ms(log.upstreamUs)} upstream`],
    ["bytes", `${log.bytesIn} in, ${log.bytesOut} out${log.streamed ? " (streamed)" : ""}`],
  ];
}

const logDocument = (log: CallLogEntry | null) =>
  log && {
    outcome: log.outcome,
    httpStatus: log.httpStatus,
    upstreamStatus: log.upstreamStatus,
    error: log.errorCode === null ? null : { code: log.errorCode, message: log.errorMessage },
    upstreamErrorExcerpt: log.upstreamErrorExcerpt,
    clientIp: log.clientIp,
    held: formatMoney(log.held),
    amount: formatMoney(log.amount),
    totalUs: log.totalUs,
    upstreamUs: log.upstreamUs,
    bytesIn: log.bytesIn,
    bytesOut: log.bytesOut,
    streamed: log.streamed,
    receivedAt: log.receivedAt.toISOString(),
  };

export const callsShowCommand: CliCommand = {
  name: "calls show",
  summary: "one gateway call by its request id, refused, failed or served: user, key, tool, outcome, the upstream's status and the start of its error body, amount, times, an LLM call's model and tokens, and the ledger entries it moved",
  usage: "calls show <request-id> [--json]",
  examples: ["calls show 0b6f8c2e-5d1a-4c59-9a57-3e0f5f2d7c11"],
  options: { json: false },
  async run(ctx, { positionals, options }) {
    const requestId = oneRequestId(positionals);
    const [[call], log] = await Promise.all([ctx.db.select().from(usageRecords).where(eq(usageRecords.requestId, requestId)), callLogEntry(ctx.db, requestId)]);
    const who = call ?? log;
    if (!who) {
      ctx.err(`no call has request id "${requestId}" (the call log keeps calls CALL_LOG_RETENTION_DAYS; calls with no valid key are not kept)`);
      return 1;
    }
    // A call refused or failed before it was charged has only its call log row.
    const keys = [`usage:${requestId}`, `refund:${requestId}`, `operator-refund:${requestId}`];
    const entries = call ? await ctx.db.select().from(ledgerEntries).where(inArray(ledgerEntries.idempotencyKey, keys)).orderBy(ledgerEntries.id) : [];
    const [tokens] = call ? await ctx.db.select().from(llmUsage).where(eq(llmUsage.usageId, call.id)) : [];
    const llm = tokens && {
      model: tokens.model,
      inputTokens: tokens.inputTokens,
      cachedInputTokens: tokens.cachedInputTokens,
      outputTokens: tokens.outputTokens,
      inputAmount: formatMoney(tokens.inputAmount + tokens.cachedInputAmount),
      cachedInputAmount: formatMoney(tokens.cachedInputAmount),
      outputAmount: formatMoney(tokens.outputAmount),
      origin: tokens.origin,
    };
    const amount = formatMoney(call ? call.amount : log!.amount);
    const at = call ? call.createdAt : log!.receivedAt;
    const document = {
      requestId,
      userId: who.userId,
      apiKeyId: who.apiKeyId,
      tool: who.toolId,
      status: call?.status ?? null,
      httpStatus: call ? call.httpStatus : log!.httpStatus,
      units: who.units,
      amount,
      latencyMs: call?.latencyMs ?? null,
      createdAt: at.toISOString(),
      completedAt: call?.completedAt?.toISOString() ?? null,
      llm: llm ?? null,
      ledger: entries.map((e) => ({ id: e.id, kind: e.kind, method: e.method, amount: formatMoney(e.amount), reference: e.reference, at: e.createdAt.toISOString() })),
      log: logDocument(log),
    };
    printRecord(
      ctx,
      [
        ["request id", requestId],
        ["user", String(who.userId)],
        ["key", `#${who.apiKeyId}`],
        ["tool", escapeUnprintable(who.toolId)],
        ["status", call ? `${call.status}${call.httpStatus === null ? "" : ` (HTTP ${call.httpStatus})`}` : "not charged"],
        // An LLM call's units are the micro-units it was held and charged (decision 051): its tokens say what it used.
        ["units", String(who.units)],
        ...(llm
          ? ([
              ["model", llm.model],
              ["tokens", `${llm.inputTokens} in (${llm.cachedInputTokens} cached) ${llm.inputAmount}, ${llm.outputTokens} out ${llm.outputAmount}, ${llm.origin}`],
            ] as [string, string][])
          : []),
        ["amount", amount],
        ["at", beijingDateTime(at)],
        ["ended", call?.completedAt ? `${beijingDateTime(call.completedAt)}${call.latencyMs === null ? "" : `, ${call.latencyMs} ms`}` : "-"],
        ...logFields(log),
        ["ledger", entries.map((e) => `#${e.id} ${e.kind} ${formatMoney(e.amount)} ${e.method} "${e.reference}" ${beijingDateTime(e.createdAt)}`)],
      ],
      { json: options.json === true, document },
    );
    return 0;
  },
};

/** Why `calls refund` gave nothing back, in the operator's words: a call never charged, or refunded by whom. */
async function refusedBecause(db: Db, requestId: string, refused: "unknown" | "pending" | "refunded" | "free"): Promise<string> {
  if (refused === "pending") return "the call is still running: refund it once it has ended";
  if (refused === "free") return "the call cost nothing: there is nothing to refund";
  if (refused === "refunded") {
    const [byOperator] = await db.select().from(ledgerEntries).where(eq(ledgerEntries.idempotencyKey, `operator-refund:${requestId}`));
    return byOperator
      ? `an operator refunded the call already (entry ${byOperator.id}, ${beijingDateTime(byOperator.createdAt)}, "${byOperator.reference}"): a call is refunded once`
      : "the gateway refunded the call already (it failed, or its answer never reached the caller): there is nothing left to refund";
  }
  const log = await callLogEntry(db, requestId);
  return log
    ? `the call was never charged: it ended ${log.outcome} (HTTP ${log.httpStatus}${log.errorCode === null ? "" : `, ${log.errorCode}`})`
    : `no call has request id "${requestId}" (the call log keeps calls CALL_LOG_RETENTION_DAYS)`;
}

export const callsRefundCommand: CliCommand = {
  name: "calls refund",
  summary: "give back what a charged call cost, once, as a refund entry naming the reason",
  usage: 'calls refund <request-id> --reason "…"',
  examples: ['calls refund 0b6f8c2e-5d1a-4c59-9a57-3e0f5f2d7c11 --reason "tool answered garbage, ticket 77"'],
  options: { reason: true },
  async run(ctx, { positionals, options }) {
    const requestId = oneRequestId(positionals);
    const reason = requiredReason(options.reason, "the user sees it as the refund's reference");
    const result = await refundChargedCall(ctx.db, { requestId, reason, now: ctx.clock.now() });
    if ("refused" in result) {
      ctx.err(`not refunded: ${await refusedBecause(ctx.db, requestId, result.refused)}`);
      return 1;
    }
    ctx.out(`refunded ${formatMoney(result.refunded)} to user ${result.userId} for call ${requestId}`);
    return 0;
  },
};
